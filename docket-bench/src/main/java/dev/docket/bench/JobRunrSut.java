package dev.docket.bench;

import static org.jobrunr.server.BackgroundJobServerConfiguration.usingStandardBackgroundJobServerConfiguration;

import java.time.Duration;
import java.util.List;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.jobrunr.jobs.mappers.JobMapper;
import org.jobrunr.scheduling.JobScheduler;
import org.jobrunr.server.BackgroundJobServer;
import org.jobrunr.server.JobActivator;
import org.jobrunr.storage.sql.postgres.PostgresStorageProvider;
import org.jobrunr.utils.mapper.JsonMapper;
import org.jobrunr.utils.mapper.jackson.JacksonJsonMapper;

/**
 * JobRunr 8.x with its PostgreSQL storage provider (which creates its own tables), worker count =
 * concurrency and the shortest poll interval it accepts (5 s). Succeeded jobs stay in {@code jobrunr_jobs}
 * with state SUCCEEDED, so the live count is the jobs in any other non-final state.
 */
final class JobRunrSut implements Sut {

    // JobRunr rejects anything below 5 s ("otherwise it will cause too much load on your datastore").
    static final Duration POLL = Duration.ofSeconds(5);

    private JsonMapper mapper;
    private PostgresStorageProvider storage;
    private JobScheduler scheduler;
    private BackgroundJobServer server;

    @Override
    public String name() {
        return "jobrunr";
    }

    @Override
    public List<String> configs(String scenario) {
        return DOCKET_ONLY.contains(scenario) ? List.of() : List.of("poll " + POLL.toMillis() + "ms");
    }

    @Override
    public LiveJobs liveJobs() {
        return new LiveJobs("SELECT count(*) FROM jobrunr_jobs WHERE state NOT IN ('SUCCEEDED', 'FAILED', 'DELETED')",
                List.of("jobrunr_jobs"));
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) {
        mapper = new JacksonJsonMapper();
        storage = new PostgresStorageProvider(dataSource);
        storage.setJobMapper(new JobMapper(mapper));
        scheduler = new JobScheduler(storage);
    }

    @Override
    public void enqueueBatch(long from, int count) {
        scheduler.enqueue(LongStream.range(from, from + count).boxed(), seq -> JobRunrJobs.noop(seq));
    }

    @Override
    public void enqueueOne(long seq) {
        scheduler.enqueue(() -> JobRunrJobs.noop(seq));
    }

    @Override
    public void startWorkers(int concurrency, Starts onStart) {
        JobRunrJobs.onStart = onStart;
        JobActivator activator = new JobActivator() {
            @Override
            public <T> T activateJob(Class<T> type) {
                return null;
            }
        };
        server = new BackgroundJobServer(storage, mapper, activator, usingStandardBackgroundJobServerConfiguration()
                .andWorkerCount(concurrency)
                .andPollInterval(POLL));
        server.start();
    }

    @Override
    public void stopWorkers() {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    @Override
    public void close() {
        stopWorkers();
        if (storage != null) {
            storage.close();
        }
    }
}
