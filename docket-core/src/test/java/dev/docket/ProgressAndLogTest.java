package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link JobContext#progress} and {@link JobContext#log}: kept with the job per attempt, bounded, fenced. */
class ProgressAndLogTest extends DocketTest {

    record Task(int n) {
    }

    @Test
    @Timeout(60)
    void progressIsVisibleWhileTheJobRunsAndGoesWithItToTheHistory() throws Exception {
        Docket docket = docket();
        CountDownLatch reported = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        long job = docket.enqueue("import", new Task(1));
        worker(docket, w -> w.queue("default", 1).handler("import", Task.class, (t, ctx) -> {
            ctx.progress(0.25, "read 250 of 1000 rows");
            ctx.log("started");
            reported.countDown();
            assertThat(finish.await(20, TimeUnit.SECONDS)).isTrue();
            ctx.progress(1, "done");
        }));
        assertThat(reported.await(20, TimeUnit.SECONDS)).isTrue();
        JobInfo running = await().atMost(Duration.ofSeconds(10)).until(() -> docket.job(job).orElseThrow(),
                j -> j.progress() != null && !j.logs().isEmpty());
        assertThat(running.state()).isEqualTo(JobState.RUNNING);
        assertThat(running.progress().fraction()).isEqualTo(0.25);
        assertThat(running.progress().message()).isEqualTo("read 250 of 1000 rows");
        assertThat(running.progress().attempt()).isEqualTo(1);
        assertThat(running.progress().at()).isNotNull();
        assertThat(running.logs()).singleElement().satisfies(l -> assertThat(l.lines()).extracting(JobLog.Line::message)
                .containsExactly("started"));

        finish.countDown();
        JobInfo done = awaitState(docket, job, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(done.progress().fraction()).as("the last call, written when the attempt ended").isEqualTo(1.0);
        assertThat(done.progress().message()).isEqualTo("done");
        assertThat(done.logs()).singleElement().satisfies(l -> assertThat(l.lines()).hasSize(1));
    }

    @Test
    @Timeout(60)
    void logsAreKeptPerAttemptAcrossRetriesAndGoToTheDeadLetterTable() {
        Docket docket = docket();
        long job = docket.enqueue("import", new Task(1), JobOptions.builder().maxAttempts(2).build());
        List<JobRun> runs = docket.worker().queue("default", 1).handler("import", Task.class, (t, ctx) -> {
            ctx.log("attempt " + ctx.attempt() + " begins");
            ctx.progress(ctx.attempt() / 2.0, null);
            throw new IllegalStateException("attempt " + ctx.attempt() + " fails");
        }).runJobsDueWithin(Duration.ofHours(1));
        assertThat(runs).extracting(JobRun::result).containsExactly(JobRun.Result.RETRYING);
        docket.worker().queue("default", 1).handler("import", Task.class, (t, ctx) -> {
            ctx.log("attempt " + ctx.attempt() + " begins");
            throw new IllegalStateException("attempt " + ctx.attempt() + " fails");
        }).runJobsDueWithin(Duration.ofHours(2));

        JobInfo dead = docket.job(job).orElseThrow();
        assertThat(dead.state()).isEqualTo(JobState.DEAD);
        assertThat(dead.logs()).extracting(JobLog::attempt).containsExactly(1, 2);
        assertThat(dead.logs().get(0).lines()).extracting(JobLog.Line::message).containsExactly("attempt 1 begins");
        assertThat(dead.logs().get(1).lines()).extracting(JobLog.Line::message).containsExactly("attempt 2 begins");
        assertThat(dead.progress().attempt()).as("the latest report, of attempt 1").isEqualTo(1);
    }

    @Test
    void eachAttemptKeepsItsLatestLinesWithinItsCapAndCountsTheRest() {
        Docket docket = docket();
        long job = docket.enqueue("import", new Task(1));
        String longLine = "é".repeat(3000);
        docket.worker().queue("default", 1).handler("import", Task.class, (t, ctx) -> {
            for (int i = 0; i < 1000; i++) {
                ctx.log("line " + i + " " + "x".repeat(100));
            }
            ctx.log(longLine);
            ctx.log("last");
        }).runReadyJobs();

        JobLog log = docket.job(job).orElseThrow().logs().getFirst();
        long bytes = log.lines().stream().mapToLong(l -> l.message().getBytes(StandardCharsets.UTF_8).length + 64).sum();
        assertThat(bytes).isLessThanOrEqualTo(32 * 1024);
        assertThat(log.lines().getLast().message()).isEqualTo("last");
        assertThat(log.lines().get(log.lines().size() - 2).message()).startsWith("é".repeat(2000))
                .endsWith(" [1000 more characters cut]");
        assertThat(log.droppedLines() + log.lines().size()).as("every line is kept or counted").isEqualTo(1002);
        assertThat(log.lines().get(log.lines().size() - 3).message()).startsWith("line 999 ");
    }

    @Test
    @Timeout(60)
    void aRunThatWaitsForASignalContinuesItsAttemptsLog() throws Exception {
        Docket docket = docket();
        long job = docket.enqueue("import", new Task(1));
        Worker.Builder runner = docket.worker().queue("default", 1).handler("import", Task.class, (t, ctx) -> {
            if (ctx.signal("go", String.class).isEmpty()) {
                ctx.log("before the wait");
                ctx.awaitSignal("go");
                return;
            }
            ctx.log("after the wait");
        });
        runner.runReadyJobs();
        docket.signal(job, "go", "now");
        runner.runReadyJobs();

        JobInfo done = docket.job(job).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.COMPLETED);
        assertThat(done.logs()).singleElement().satisfies(l -> {
            assertThat(l.attempt()).isEqualTo(1);
            assertThat(l.lines()).extracting(JobLog.Line::message).containsExactly("before the wait", "after the wait");
        });
    }

    @Test
    @Timeout(60)
    void aHandlerReportingWithoutPauseIsWrittenAtMostEveryQuarterSecond() throws Exception {
        Docket docket = docket();
        execute("""
                CREATE TABLE {s}.progress_writes (n int);
                CREATE FUNCTION {s}.count_progress() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO {s}.progress_writes VALUES (1); RETURN NEW; END $$;
                CREATE TRIGGER count_progress AFTER UPDATE OF progress ON {s}.jobs
                    FOR EACH ROW WHEN (NEW.progress IS DISTINCT FROM OLD.progress) EXECUTE FUNCTION {s}.count_progress()""");
        AtomicReference<Long> took = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        long job = docket.enqueue("import", new Task(1));
        worker(docket, w -> w.queue("default", 1).handler("import", Task.class, (t, ctx) -> {
            long start = System.nanoTime();
            for (int i = 0; i <= 200_000; i++) {
                ctx.progress(i / 200_000.0, "row " + i);
            }
            took.set(System.nanoTime() - start);
            done.countDown();
        }));
        assertThat(done.await(30, TimeUnit.SECONDS)).isTrue();
        JobInfo completed = awaitState(docket, job, JobState.COMPLETED, Duration.ofSeconds(10));
        assertThat(completed.progress().fraction()).isEqualTo(1.0);
        long writes = queryLong("SELECT count(*) FROM {s}.progress_writes");
        long allowed = 2 + took.get() / TimeUnit.MILLISECONDS.toNanos(250);
        assertThat(writes).as("at most one write per 250 ms, plus the first and the last").isBetween(1L, allowed);
    }

    @Test
    void aJobThatNeitherReportsNorLogsHasNoneAndCostsNoStatement() {
        Docket docket = docket();
        execute("""
                CREATE TABLE {s}.note_writes (n int);
                CREATE FUNCTION {s}.count_notes() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN INSERT INTO {s}.note_writes VALUES (1); RETURN NEW; END $$;
                CREATE TRIGGER count_notes AFTER UPDATE OF progress, logs ON {s}.jobs
                    FOR EACH ROW EXECUTE FUNCTION {s}.count_notes()""");
        long job = docket.enqueue("import", new Task(1));
        docket.worker().queue("default", 1).handler("import", Task.class, (t, ctx) -> { }).runReadyJobs();
        JobInfo done = docket.job(job).orElseThrow();
        assertThat(done.progress()).isNull();
        assertThat(done.logs()).isEmpty();
        assertThat(queryLong("SELECT count(*) FROM {s}.note_writes")).isZero();
    }

    @Test
    void malformedProgressAndLogLinesAreRefused() {
        Docket docket = docket();
        docket.enqueue("import", new Task(1));
        List<String> refused = new ArrayList<>();
        docket.worker().queue("default", 1).handler("import", Task.class, (t, ctx) -> {
            for (double bad : new double[] {Double.NaN, -0.01, 1.01, Double.POSITIVE_INFINITY}) {
                try {
                    ctx.progress(bad, null);
                } catch (IllegalArgumentException e) {
                    refused.add("progress " + bad);
                }
            }
            for (String bad : new String[] {"x".repeat(501), "a\u0000b", "\ud800"}) {
                try {
                    ctx.progress(0.5, bad);
                } catch (IllegalArgumentException e) {
                    refused.add("message");
                }
            }
            for (String bad : new String[] {null, "a\u0000b", "x\udc00"}) {
                try {
                    ctx.log(bad);
                } catch (IllegalArgumentException e) {
                    refused.add("log");
                }
            }
        }).runReadyJobs();
        assertThat(refused).hasSize(10);
    }
}
