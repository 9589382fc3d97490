-- Workers: the registry of live workers (WorkerRegistry writes it; doctor, explain, strictKinds and the
-- workers view read it).

-- fragment: workerLive
-- Live: a heartbeat within three heartbeat intervals (one missed round is not death).
w.heartbeat_at > now() - 3 * w.heartbeat_interval_ms * interval '1 millisecond'

-- name: workerRegister
-- One statement per round, the whole row each time: a worker whose row was pruned while it stalled,
-- or lost with the unlogged table in a crash, is back at its next round. Rows whose heartbeats
-- stopped an hour ago go in the same statement (until then doctor reports them as stopped).
WITH pruned AS (
    DELETE FROM {{schema}}.workers WHERE heartbeat_at < now() - interval '1 hour' AND id <> ?
)
INSERT INTO {{schema}}.workers AS w (id, host, pid, queues, kinds, version, pool_size, connections_needed, listen,
                                     listening, stalled, heartbeat_interval_ms, handlers_running,
                                     finished_last_minute, failed_last_minute)
VALUES (?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?)
ON CONFLICT (id) DO UPDATE
   SET host = EXCLUDED.host, pid = EXCLUDED.pid, queues = EXCLUDED.queues, kinds = EXCLUDED.kinds,
       version = EXCLUDED.version, pool_size = EXCLUDED.pool_size, connections_needed = EXCLUDED.connections_needed,
       listen = EXCLUDED.listen, listening = EXCLUDED.listening, stalled = EXCLUDED.stalled,
       heartbeat_interval_ms = EXCLUDED.heartbeat_interval_ms, handlers_running = EXCLUDED.handlers_running,
       finished_last_minute = EXCLUDED.finished_last_minute, failed_last_minute = EXCLUDED.failed_last_minute,
       heartbeat_at = now()

-- name: workerDeregister
DELETE FROM {{schema}}.workers WHERE id = ?

-- name: workerList
-- Running jobs per worker come from the running set only (jobs_running_idx), at most the cluster's concurrency.
SELECT w.id, w.host, w.pid, w.queues::text AS queues, w.kinds::text AS kinds, w.version, w.pool_size,
       w.connections_needed, w.listen, w.listening, w.stalled, w.heartbeat_interval_ms, w.started_at, w.heartbeat_at,
       w.handlers_running, w.finished_last_minute, w.failed_last_minute,
       ({{workerLive}}) AS live, extract(epoch FROM now() - w.heartbeat_at)::float8 AS heartbeat_age_seconds,
       (SELECT count(*) FROM {{schema}}.jobs j WHERE j.state = 'running' AND j.locked_by = w.id) AS running
  FROM {{schema}}.workers w
 ORDER BY w.started_at, w.id
