-- Dependencies between jobs (job_dependencies): what enqueue does for a job that waits for others.
-- Settling them when a dependency finishes is the trigger jobs_settle_dependents (migration V012).

-- name: dependencyLockLive
-- Marks the live dependencies as having dependents, which also locks their rows until the enqueue
-- commits: a dependency that finishes meanwhile waits for the commit, and its trigger then sees the
-- new edges. The ids it does not return were not live when their lock was granted.
UPDATE {{schema}}.jobs SET has_dependents = true WHERE id = ANY (?::bigint[]) RETURNING id

-- name: dependencyFinished
-- How the dependencies that are not live ended. A statement of its own, after the lock: its snapshot
-- sees a dependency that finished while the lock was awaited. Dead ones are locked (KEY SHARE) until the
-- enqueue commits, so that a replay of one waits, and then finds the new edges (dead_jobs_settle_dependents).
WITH dead AS (
    SELECT id FROM {{schema}}.dead_jobs WHERE id = ANY (?::bigint[]) FOR KEY SHARE
)
SELECT id, state AS outcome FROM {{schema}}.job_history WHERE id = ANY (?::bigint[])
UNION ALL
SELECT id, 'dead' FROM dead

-- name: dependencyInsertEdges
INSERT INTO {{schema}}.job_dependencies (depends_on, job_id, mode)
SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[])

-- name: dependencyWait
-- The jobs just inserted that wait: out of the claim index until their dependencies settle them; a timer
-- (delay_ms, null for none) makes the last settlement schedule the job that long after.
UPDATE {{schema}}.jobs j SET state = 'waiting', waiting_for = w.n, dependency_delay_ms = w.delay_ms
  FROM unnest(?::bigint[], ?::int[], ?::bigint[]) AS w(id, n, delay_ms)
 WHERE j.id = w.id

-- name: dependencyDelayNow
-- Jobs with a timer whose dependencies had all completed at enqueue: they run the delay after now.
UPDATE {{schema}}.jobs j
   SET state = 'scheduled', run_at = greatest(j.run_at, now() + w.delay_ms * interval '1 millisecond')
  FROM unnest(?::bigint[], ?::bigint[]) AS w(id, delay_ms)
 WHERE j.id = w.id AND j.state IN ('ready', 'scheduled')

-- name: dependencyCancelWaiting
SELECT {{schema}}.cancel_waiting(?::bigint[], ?::text)

-- name: dependencyWaitingFor
-- What a waiting job waits for (explain): its unsettled dependencies, first few, with where each is.
SELECT d.depends_on, d.mode, coalesce(j.state, 'dead') AS state
  FROM {{schema}}.job_dependencies d
  LEFT JOIN {{schema}}.jobs j ON j.id = d.depends_on
 WHERE d.job_id = ?
 ORDER BY d.depends_on
 LIMIT ?

-- name: dependencyWaitingCount
SELECT waiting_for AS n FROM {{schema}}.jobs WHERE id = ? AND state = 'waiting'
