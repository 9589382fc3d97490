-- Explain: what "why is this job not running?" reads (DocketAdmin.explain). Read-only.

-- name: explainJob
-- A live job with what the answer needs beyond JobInfo: its lease, the database's now, and the
-- time of its last failure (a scheduled job with one is backing off).
SELECT id, queue, kind, state, priority, run_at, attempt, max_attempts, tenant, locked_by, lease_until,
       attempted_at, payload_version, metadata::text AS metadata,
       (errors -> -1 ->> 'at')::timestamptz AS last_error_at, now() AS now, sequence_key,
       waiting_for, dependency_delay_ms, await_signal, await_since, await_deadline, await_on_timeout,
       CASE WHEN attempted_at IS NULL THEN debounce_key END AS debounce_key, debounce_deadline
  FROM {{schema}}.jobs
 WHERE id = ?

-- name: explainQueue
-- The queue's settings and what runs in it now: all of it, and the job's tenant's share.
SELECT (SELECT paused FROM {{schema}}.queues WHERE name = ?) AS paused,
       (SELECT max_running FROM {{schema}}.queues WHERE name = ?) AS max_running,
       (SELECT tenant_max_running FROM {{schema}}.queues WHERE name = ?) AS tenant_max_running,
       count(*) AS running,
       count(*) FILTER (WHERE tenant = ?) AS tenant_running
  FROM {{schema}}.jobs
 WHERE state = 'running' AND queue = ?

-- name: explainAhead
-- Ready jobs the claim takes before this one: the claim index's order, walked from its left edge,
-- counted up to a bound so that a huge backlog costs a bounded scan.
SELECT count(*) AS ahead FROM (
    SELECT 1 FROM {{schema}}.jobs
     WHERE queue = ? AND state = 'ready' AND (priority, run_at, id) < (?::smallint, ?::timestamptz, ?::bigint)
     LIMIT 100000
) a
