package dev.docket.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * db-scheduler 16.x with its PostgreSQL table, tuned as its README recommends for throughput: polling
 * strategy lock-and-fetch, threads = concurrency, immediate execution, a 100 ms polling interval.
 * One-time tasks are deleted on completion. Enqueues go through a {@link SchedulerClient}, or through
 * the running scheduler once workers are started (so immediate execution applies).
 */
final class DbSchedulerSut implements Sut {

    private DataSource ds;
    private OneTimeTask<Long> task;
    private SchedulerClient client;
    private volatile Scheduler scheduler;
    private volatile Starts onStart = Starts.NONE;

    @Override
    public String name() {
        return "db-scheduler";
    }

    @Override
    public List<String> configs(String scenario) {
        return DOCKET_ONLY.contains(scenario) ? List.of() : List.of("lock-and-fetch");
    }

    @Override
    public LiveJobs liveJobs() {
        return new LiveJobs("SELECT count(*) FROM scheduled_tasks", List.of("scheduled_tasks"));
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) throws Exception {
        this.ds = dataSource;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            // docs: db-scheduler/src/test/resources/postgresql_tables.sql
            s.execute("""
                    create table scheduled_tasks (
                      task_name text not null,
                      task_instance text not null,
                      task_data bytea,
                      execution_time timestamp with time zone not null,
                      picked BOOLEAN not null,
                      picked_by text,
                      last_success timestamp with time zone,
                      last_failure timestamp with time zone,
                      consecutive_failures INT,
                      last_heartbeat timestamp with time zone,
                      version BIGINT not null,
                      priority SMALLINT,
                      PRIMARY KEY (task_name, task_instance))""");
            s.execute("CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time)");
            s.execute("CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat)");
            s.execute("CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc)");
        }
        task = Tasks.oneTime("noop", Long.class).execute((inst, ctx) -> onStart.started(inst.getData(), System.nanoTime()));
        client = SchedulerClient.Builder.create(dataSource, task).build();
    }

    private SchedulerClient client() {
        Scheduler s = scheduler;
        return s != null ? s : client;
    }

    @Override
    public void enqueueBatch(long from, int count) {
        List<TaskInstance<?>> batch = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            batch.add(task.instance("j" + (from + i), from + i));
        }
        client().scheduleBatch(batch, Instant.now());
    }

    @Override
    public void enqueueOne(long seq) {
        client().schedule(task.instance("j" + seq, seq), Instant.now());
    }

    @Override
    public void startWorkers(int concurrency, Starts onStart) {
        this.onStart = onStart;
        Scheduler s = Scheduler.create(ds, task)
                .threads(concurrency)
                .pollUsingLockAndFetch(0.5, 1.0)
                .pollingInterval(Duration.ofMillis(100))
                .enableImmediateExecution()
                .shutdownMaxWait(Duration.ofSeconds(5))
                .build();
        s.start();
        scheduler = s;
    }

    @Override
    public void stopWorkers() {
        Scheduler s = scheduler;
        scheduler = null;
        if (s != null) {
            s.stop();
        }
    }
}
