-- Doctor: read-only checks of the database and of Docket's tables (DocketAdmin.doctor). None is on a
-- hot path; each runs once per doctor call.

-- name: doctorJobsTable
-- The hot table's dead rows, last vacuums and storage options (reloptions), with the server's
-- autovacuum trigger so that the check can tell "autovacuum is behind" from "not due yet".
SELECT c.reltuples::bigint AS reltuples, c.reloptions::text[] AS reloptions,
       s.n_live_tup, s.n_dead_tup, s.last_vacuum, s.last_autovacuum, s.autovacuum_count,
       extract(epoch FROM now() - greatest(s.last_vacuum, s.last_autovacuum))::float8 AS since_vacuum_seconds,
       current_setting('autovacuum')::boolean AS autovacuum_on,
       current_setting('autovacuum_vacuum_threshold')::bigint AS vacuum_threshold,
       -- The claim walks this index from its left edge: its size against the ready rows is what a claim pays.
       pg_relation_size(to_regclass('{{schema}}.jobs_claim_idx')) / current_setting('block_size')::bigint AS claim_index_pages,
       (SELECT count(*) FROM {{schema}}.jobs WHERE state = 'ready') AS ready_rows
  FROM pg_class c
  JOIN pg_namespace n ON n.oid = c.relnamespace
  LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
 WHERE n.nspname = '{{schema_name}}' AND c.relname = 'jobs'

-- name: doctorSessions
-- Sessions whose snapshot (backend_xmin) or transaction id (backend_xid) holds the xmin horizon back,
-- in a transaction older than the threshold: no vacuum anywhere in the database can remove a row
-- that died after their start. The doctor's own session is left out, and so is every session's
-- statement text: it may hold data (payloads, personal data) that a report must not carry.
SELECT a.pid, a.usename, a.application_name, host(a.client_addr) AS client_addr, a.state, a.backend_type,
       extract(epoch FROM now() - a.xact_start)::float8 AS xact_seconds,
       extract(epoch FROM now() - a.state_change)::float8 AS state_seconds,
       greatest(age(a.backend_xmin), age(a.backend_xid)) AS xid_age
  FROM pg_stat_activity a
 WHERE a.pid <> pg_backend_pid()
   AND (a.backend_xmin IS NOT NULL OR a.backend_xid IS NOT NULL)
   AND a.xact_start < now() - ? * interval '1 millisecond'
 ORDER BY a.xact_start
 LIMIT 20

-- name: doctorSlots
SELECT slot_name, slot_type, active, active_pid, database,
       greatest(age(xmin), age(catalog_xmin)) AS xid_age
  FROM pg_replication_slots
 WHERE xmin IS NOT NULL OR catalog_xmin IS NOT NULL
 ORDER BY greatest(age(xmin), age(catalog_xmin)) DESC

-- name: doctorPrepared
SELECT gid, owner, database, age(transaction) AS xid_age, extract(epoch FROM now() - prepared)::float8 AS seconds
  FROM pg_prepared_xacts
 WHERE prepared < now() - ? * interval '1 millisecond'
 ORDER BY prepared

-- name: doctorStandbys
-- A standby with hot_standby_feedback reports its oldest snapshot here; it holds the primary's horizon.
SELECT pid, application_name, host(client_addr) AS client_addr, state, age(backend_xmin) AS xid_age
  FROM pg_stat_replication
 WHERE backend_xmin IS NOT NULL
 ORDER BY age(backend_xmin) DESC

-- name: doctorQueues
-- Per queue: live counts, lag, settings and lag objective; a queue that only has settings or an
-- objective shows too (with no jobs).
WITH live AS (
    SELECT queue,
           count(*) FILTER (WHERE state = 'ready') AS ready,
           count(*) FILTER (WHERE state = 'running') AS running,
           extract(epoch FROM now() - min(run_at) FILTER (WHERE state = 'ready'))::float8 AS lag_seconds
      FROM {{schema}}.jobs
     GROUP BY queue
), slo AS (
    SELECT name, seconds FROM {{schema}}.slos WHERE scope = 'queue_lag'
), names AS (
    SELECT queue AS name FROM live UNION SELECT name FROM {{schema}}.queues UNION SELECT name FROM slo
)
SELECT n.name AS queue, coalesce(l.ready, 0) AS ready, coalesce(l.running, 0) AS running, l.lag_seconds,
       coalesce(q.paused, false) AS paused, q.max_running, s.seconds AS lag_slo_seconds
  FROM names n
  LEFT JOIN live l ON l.queue = n.name
  LEFT JOIN {{schema}}.queues q ON q.name = n.name
  LEFT JOIN slo s ON s.name = n.name
 ORDER BY n.name

-- name: doctorPickup
-- Per kind with an objective: the pickup p99 of first attempts completed in the last five minutes.
WITH p AS (
    SELECT kind, count(*) AS jobs,
           percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - run_at)) AS p99_seconds
      FROM {{schema}}.job_history
     WHERE finished_at > now() - interval '5 minutes' AND attempted_at IS NOT NULL AND attempt = 1
     GROUP BY kind
)
SELECT s.name AS kind, s.seconds AS slo_seconds, p.p99_seconds, coalesce(p.jobs, 0) AS jobs
  FROM {{schema}}.slos s
  LEFT JOIN p ON p.kind = s.name
 WHERE s.scope = 'kind_pickup_p99'
 ORDER BY s.name

-- name: doctorDeadGrowth
SELECT queue, kind,
       count(*) FILTER (WHERE died_at > now() - interval '24 hours') AS last_day,
       count(*) FILTER (WHERE died_at <= now() - interval '24 hours') AS day_before
  FROM {{schema}}.dead_jobs
 WHERE died_at > now() - interval '48 hours'
 GROUP BY queue, kind
HAVING count(*) FILTER (WHERE died_at > now() - interval '24 hours') > 0
 ORDER BY count(*) FILTER (WHERE died_at > now() - interval '24 hours') DESC

-- name: doctorUnserved
-- Live jobs by queue and kind that no live worker serves (both the queue and the kind). Running ones
-- count too: a worker that serves the queue but not the kind claims them, and fails them. Grouped
-- first, so the workers are looked up once per queue and kind, not per job.
WITH live AS (
    SELECT queue, kind,
           count(*) FILTER (WHERE state = 'ready') AS ready,
           count(*) FILTER (WHERE state = 'scheduled') AS scheduled,
           count(*) FILTER (WHERE state = 'running') AS running
      FROM {{schema}}.jobs
     GROUP BY queue, kind
)
SELECT j.queue, j.kind, j.ready, j.scheduled, j.running,
       EXISTS (SELECT 1 FROM {{schema}}.workers w WHERE {{workerLive}} AND (w.queues -> j.queue) IS NOT NULL) AS queue_served
  FROM live j
 WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.workers w
                    WHERE {{workerLive}} AND (w.queues -> j.queue) IS NOT NULL AND (w.kinds -> j.kind) IS NOT NULL)
 ORDER BY j.queue, j.kind

-- name: doctorPartitions
-- The history's partitions, today's date (UTC, as the partitions are cut) and whether rows fell
-- into the default partition (a day whose partition was missing).
SELECT (now() AT TIME ZONE 'UTC')::date::text AS today,
       EXISTS (SELECT 1 FROM {{schema}}.job_history_default) AS default_has_rows,
       ARRAY(SELECT c.relname::text
               FROM pg_partition_tree('{{schema}}.job_history') t
               JOIN pg_class c ON c.oid = t.relid
              WHERE c.relname ~ '^job_history_p[0-9]{8}$'
              ORDER BY c.relname) AS partitions

-- name: doctorMaintenance
-- Whether a maintenance leader holds its lease, and how overdue the most overdue scheduled job is
-- (due jobs are made ready by the leader every maintenance round).
SELECT (SELECT leader_id FROM {{schema}}.leaders WHERE role = 'maintainer' AND expires_at > now()) AS leader,
       (SELECT extract(epoch FROM now() - min(run_at))::float8 FROM {{schema}}.jobs
         WHERE state = 'scheduled' AND run_at < now()) AS overdue_seconds
