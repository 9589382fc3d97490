package dev.docket.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps the harness working: a short run for Docket and raw SQL yields a row per system and scenario, and
 * Docket's fairness rows for both configurations. No speed.
 */
class BenchShortTest {

    @Test
    void shortRunProducesARowPerSystemAndScenario(@TempDir Path out) throws Exception {
        List<String> scenarios = List.of("bulk", "single", "drain", "steady", "pickup");
        BenchOptions options = BenchOptions.parse(new String[]{"--short", "--systems", "docket,raw", "--scenarios",
                String.join(",", scenarios) + ",fairness", "--jobs", "2000", "--concurrency", "8", "--out", out.toString()});

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
        assertThat(out.resolve("results.md")).exists();
        assertThat(Files.readString(out.resolve("results.json"))).contains("\"results\"");
        assertThat(Files.readString(out.resolve("chart.svg"))).startsWith("<svg");
    }
}
