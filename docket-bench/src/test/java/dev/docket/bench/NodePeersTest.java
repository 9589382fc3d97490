package dev.docket.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Node.js peers: without Node the run says how to get it; with Node and the packages installed (as
 * {@code bin/bench} installs them), graphile-worker and pg-boss each produce bulk, drain and pickup rows
 * through their drivers, warmed up like every system, with one Node process each for all of a run's
 * measurements. The second test is skipped on a machine where {@code bin/bench} never ran;
 * {@code .ci/run} runs the same systems through {@code bin/bench --short}.
 */
class NodePeersTest {

    @Test
    void aMissingNodeInstallationIsReportedWithWhatToDo(@TempDir Path empty) {
        assertThatThrownBy(() -> NodeRuntime.start("pg-boss", empty))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Node 22 and pg-boss are not installed in " + empty)
                .hasMessageContaining("bin/bench installs them");
    }

    @Test
    @Tag("load")
    void graphileWorkerAndPgBossRunTheScenariosThroughTheirDrivers(@TempDir Path out) throws Exception {
        Path node = NodeRuntime.dir();
        assumeTrue(NodeRuntime.installed(node, "graphile-worker") && NodeRuntime.installed(node, "pg-boss"),
                "Node peers not installed in " + node + " (bin/bench installs them)");
        List<String> scenarios = List.of("bulk", "drain", "pickup");
        BenchOptions options = BenchOptions.parse(new String[]{"--short", "--systems", "graphile-worker,pg-boss",
                "--scenarios", String.join(",", scenarios), "--jobs", "1000", "--concurrency", "8,16", "--warmup", "1",
                "--out", out.toString()});
        Bench bench = new Bench(options);

        List<Bench.Row> rows = bench.run();

        assertThat(rows).noneSatisfy(r -> assertThat(r.metric()).startsWith("error"));
        assertThat(bench.measurementsBegun()).as("per system: its warm-up, and bulk, 2 drains, pickup each after one")
                .isEqualTo(2 * 8);
        assertThat(bench.nodeProcessesStarted()).as("one Node process per system for the whole run").isEqualTo(2);
        for (String system : List.of("graphile-worker", "pg-boss")) {
            assertThat(rows).filteredOn(r -> r.system().equals(system)).extracting(Bench.Row::metric)
                    .contains("enqueue jobs/s", "enqueue WAL bytes/job", "drain jobs/s", "drain WAL bytes/job",
                            Drain.STALL_METRIC, "pickup p50 ms", "pickup p99 ms");
            // starts come back with the Node process's clock: a latency is positive and far below the 30 s limit
            assertThat(rows).filteredOn(r -> r.system().equals(system) && r.metric().equals("pickup p99 ms"))
                    .singleElement().satisfies(r -> assertThat(r.median()).isPositive().isLessThan(30_000));
        }
    }
}
