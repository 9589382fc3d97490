package dev.docket.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the harness working: a short run for Docket and raw SQL yields a row per system and scenario,
 * a drain's longest stall per repetition, every raw variant, Docket's fairness rows for both
 * configurations and its scale-out rows for one and two worker JVMs. No speed, and no stall asserted:
 * that is {@code bin/bench}'s exit status in CI.
 */
@Tag("load")
class BenchShortTest {

    @Test
    void shortRunProducesARowPerSystemAndScenario(@TempDir Path out) throws Exception {
        List<String> scenarios = List.of("bulk", "single", "drain", "steady", "pickup");
        BenchOptions options = BenchOptions.parse(new String[]{"--short", "--systems", "docket,raw", "--scenarios",
                String.join(",", scenarios) + ",fairness,scaleout", "--jobs", "2000", "--concurrency", "8",
                "--processes", "1,2", "--out", out.toString()});

        List<Bench.Row> rows = new Bench(options).run();

        for (String system : List.of("docket", "raw")) {
            for (String scenario : scenarios) {
                assertThat(rows)
                        .as("%s %s", system, scenario)
                        .anySatisfy(r -> {
                            assertThat(r.system()).isEqualTo(system);
                            assertThat(r.scenario()).isEqualTo(scenario);
                            assertThat(r.metric()).doesNotStartWith("error");
                            assertThat(r.values()).isNotEmpty();
                        });
                assertThat(rows).noneSatisfy(r -> assertThat(r.metric()).startsWith("error"));
            }
        }
        for (String config : List.of(TenantFairness.CAPPED, TenantFairness.UNCAPPED)) {
            assertThat(rows).as("fairness %s", config).filteredOn(r -> r.scenario().equals("fairness"))
                    .filteredOn(r -> r.config().equals(config)).extracting(Bench.Row::metric)
                    .containsExactly("calm tenant's last start ms", "flood started before it, jobs");
        }
        assertThat(rows).filteredOn(r -> r.scenario().equals("fairness")).extracting(Bench.Row::system)
                .containsOnly("docket");
        assertThat(rows).filteredOn(r -> r.scenario().equals("scaleout"))
                .allSatisfy(r -> assertThat(r.values()).singleElement().satisfies(v -> assertThat(v).isPositive()))
                .extracting(r -> r.system() + " " + r.config() + ": " + r.metric())
                .containsExactly("docket 1 JVM × c=8: scale-out jobs/s", "docket 2 JVMs × c=8: scale-out jobs/s");
        for (String system : List.of("docket", "raw")) {
            assertThat(rows).as("%s's drains", system).filteredOn(r -> r.system().equals(system) && r.scenario().equals("drain"))
                    .filteredOn(r -> r.metric().equals(Drain.STALL_METRIC)).isNotEmpty()
                    .allSatisfy(r -> assertThat(r.values()).singleElement().satisfies(v -> assertThat(v).isNotNegative()));
        }
        assertThat(rows).filteredOn(r -> r.system().equals("raw") && r.metric().equals("drain jobs/s"))
                .extracting(Bench.Row::config)
                .containsExactly("B=10 c=8", "B=100 c=8", "B=1000 c=8", "B=100-cte c=8", "B=100-id c=8", "B=100-done c=8");
        assertThat(Files.readString(out.resolve("results.md"))).as("the ratio names raw's best configuration")
                .containsPattern("\\| drain c=8 \\| drain jobs/s \\| \\S+ \\| raw \\| B=\\S+ \\|");
        assertThat(rows).as("Docket's async configuration runs only when named")
                .filteredOn(r -> r.scenario().equals("drain")).extracting(Bench.Row::config)
                .noneMatch(c -> c.startsWith(DocketSut.ASYNC));
        assertThat(out.resolve("results.md")).exists();
        assertThat(Files.readString(out.resolve("results.json"))).contains("\"results\"");
        assertThat(Files.readString(out.resolve("chart.svg"))).startsWith("<svg").contains("Scale-out");
        assertThat(Files.readString(out.resolve("results.md"))).contains("| 2 JVMs × c=8 |");
    }

    /**
     * A warm-up measures once, untimed, before a configuration's timed drains, after the system's own
     * warm-up drain, and neither figure is in a row; the steady scenario, which takes its rate from those
     * drains, gets none.
     */
    @Test
    void warmUpRunsBeforeTheDrainsAndCountsInNoRow(@TempDir Path out) throws Exception {
        BenchOptions options = BenchOptions.parse(new String[]{"--short", "--systems", "docket", "--scenarios",
                "drain,steady", "--configs", "default", "--warmup", "1", "--jobs", "2000", "--concurrency", "8,16",
                "--out", out.toString()});
        Bench bench = new Bench(options);

        List<Bench.Row> rows = bench.run();

        assertThat(bench.measurementsBegun()).as("the system's warm-up, the drain's, 2 drains, 1 steady").isEqualTo(5);
        assertThat(rows).filteredOn(r -> r.scenario().equals("drain") && r.metric().equals("drain jobs/s"))
                .extracting(Bench.Row::config).containsExactly("default c=8", "default c=16");
        assertThat(rows).allSatisfy(r -> assertThat(r.values()).hasSize(1));
    }

    /** Naming {@code async} measures the drain with the workers' asyncCommit(true), and nothing else. */
    @Test
    void asyncConfigurationRunsWhenNamed(@TempDir Path out) throws Exception {
        BenchOptions options = BenchOptions.parse(new String[]{"--short", "--systems", "docket", "--scenarios", "drain",
                "--configs", DocketSut.ASYNC, "--jobs", "2000", "--concurrency", "8", "--out", out.toString()});

        List<Bench.Row> rows = new Bench(options).run();

        assertThat(rows).extracting(r -> r.config() + ": " + r.metric())
                .containsExactly("async c=8: drain jobs/s", "async c=8: drain WAL bytes/job",
                        "async c=8: enqueue+drain WAL bytes/job", "async c=8: drain PostgreSQL CPU µs/job",
                        "async c=8: enqueue+drain PostgreSQL CPU µs/job", "async c=8: " + Drain.STALL_METRIC);
        assertThat(rows).filteredOn(r -> r.metric().equals("drain jobs/s"))
                .allSatisfy(r -> assertThat(r.values()).singleElement().satisfies(v -> assertThat(v).isPositive()));
    }

    /**
     * The sizing figures: the embedded server runs on this host, so its CPU per job is read, and a job's whole
     * life costs more WAL and more of PostgreSQL's CPU than its drain alone.
     */
    @Test
    void drainReportsWalAndPostgresCpuPerJobOverTheJobsLife(@TempDir Path out) throws Exception {
        BenchOptions options = BenchOptions.parse(new String[]{"--short", "--systems", "docket", "--scenarios", "bulk,drain",
                "--configs", "default", "--jobs", "3000", "--concurrency", "8", "--out", out.toString()});

        List<Bench.Row> rows = new Bench(options).run();

        assertThat(value(rows, "enqueue PostgreSQL CPU µs/job")).isPositive();
        assertThat(value(rows, "drain PostgreSQL CPU µs/job")).isPositive();
        assertThat(value(rows, "enqueue+drain PostgreSQL CPU µs/job")).isGreaterThan(value(rows, "drain PostgreSQL CPU µs/job"));
        assertThat(value(rows, "enqueue+drain WAL bytes/job")).isGreaterThan(value(rows, "drain WAL bytes/job"));
        assertThat(rows).filteredOn(r -> r.metric().endsWith("µs/job")).extracting(Bench.Row::unit).containsOnly("µs");
    }

    private static double value(List<Bench.Row> rows, String metric) {
        return rows.stream().filter(r -> r.metric().equals(metric)).findFirst().orElseThrow().values().getFirst();
    }

    /** The signals scenario measures both ways to wait, each with its three figures. */
    @Test
    void signalsScenarioMeasuresSignalsPerSecondBothWays(@TempDir Path out) throws Exception {
        BenchOptions options = BenchOptions.parse(new String[]{"--short", "--systems", "docket", "--scenarios", "signals",
                "--jobs", "1000", "--out", out.toString()});

        List<Bench.Row> rows = new Bench(options).run();

        assertThat(rows).extracting(r -> r.config() + ": " + r.metric()).containsExactly(
                SignalDrain.AT_ENQUEUE + ": enqueue rows/s", SignalDrain.AT_ENQUEUE + ": signals/s",
                SignalDrain.AT_ENQUEUE + ": resumed jobs/s", SignalDrain.IN_HANDLER + ": enqueue rows/s",
                SignalDrain.IN_HANDLER + ": signals/s", SignalDrain.IN_HANDLER + ": resumed jobs/s");
        assertThat(rows).allSatisfy(r -> assertThat(r.values()).singleElement().satisfies(v -> assertThat(v).isPositive()));
    }
}
