-- Statistics for the admin API, the dashboard and the metrics: read-only, over all tables.

-- name: statsSnapshot
-- The three statistics queries read one snapshot, so a job moving between tables is counted once.
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ

-- name: statsLive
-- Counts of the hot table only (live jobs), so they stay cheap however large the history grows.
SELECT queue, kind,
       count(*) FILTER (WHERE state = 'scheduled') AS scheduled,
       count(*) FILTER (WHERE state = 'ready') AS ready,
       count(*) FILTER (WHERE state = 'running') AS running,
       count(*) FILTER (WHERE state = 'scheduled' AND run_at <= now()) AS overdue,
       extract(epoch FROM now() - min(run_at) FILTER (WHERE state = 'ready')) AS lag_seconds,
       count(*) FILTER (WHERE state = 'scheduled' AND jsonb_array_length(errors) > 0
                          AND (errors -> -1 ->> 'at')::timestamptz > now() - interval '1 minute') AS retried_last_minute
  FROM {{schema}}.jobs
 GROUP BY queue, kind

-- name: statsHistory
-- Pickup latency: from due (run_at) to claimed (attempted_at) for first attempts of the last five minutes.
SELECT queue, kind,
       count(*) FILTER (WHERE state = 'completed' AND finished_at > now() - interval '1 minute') AS completed_last_minute,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - run_at) * 1000)
           FILTER (WHERE attempt = 1) AS pickup_p50_ms,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - run_at) * 1000)
           FILTER (WHERE attempt = 1) AS pickup_p99_ms
  FROM {{schema}}.job_history
 WHERE finished_at > now() - interval '5 minutes' AND attempted_at IS NOT NULL
 GROUP BY queue, kind

-- name: statsDead
SELECT queue, kind, count(*) AS dead,
       count(*) FILTER (WHERE died_at > now() - interval '24 hours') AS dead_last_day,
       count(*) FILTER (WHERE died_at > now() - interval '1 minute') AS dead_last_minute
  FROM {{schema}}.dead_jobs
 GROUP BY queue, kind

-- name: statsRunningByTenant
-- Reads only the running set, which is at most the cluster's concurrency.
SELECT queue, tenant, count(*) AS running FROM {{schema}}.jobs
 WHERE state = 'running'
 GROUP BY queue, tenant
 ORDER BY queue, count(*) DESC

-- name: statsJobsTableVacuum
-- The hot table's vacuum debt for the metrics: dead row versions and seconds since the last vacuum
-- (manual, by the maintainer, or autovacuum), as the statistics system last saw them. Null age: never vacuumed.
SELECT n_dead_tup AS dead_tuples,
       extract(epoch FROM now() - greatest(last_vacuum, last_autovacuum))::float8 AS vacuum_age_seconds
  FROM pg_stat_user_tables
 WHERE relid = '{{schema}}.jobs'::regclass
