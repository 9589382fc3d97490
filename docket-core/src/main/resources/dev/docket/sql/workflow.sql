-- Workflows (workflows, workflow_steps) and the outputs jobs record (jobs.output, moved to the history
-- with the job).

-- name: workflowRecordOutput
-- Fenced like every write of a worker: an attempt whose lease was lost records nothing. output is in
-- no index, so this is a HOT update.
UPDATE {{schema}}.jobs j SET output = ?::jsonb
 WHERE j.id = ? AND j.attempt = ? AND j.locked_by = ? AND j.state = 'running'

-- name: workflowCompletedOutput
SELECT output::text AS output FROM {{schema}}.job_history
 WHERE id = ? AND state = 'completed' AND output IS NOT NULL

-- name: workflowInsert
INSERT INTO {{schema}}.workflows (name, dependency_mode) VALUES (?, ?) RETURNING id

-- name: workflowInsertSteps
-- depends_on comes as one JSON array of names per step; each step's declared waits (NULL for none) are
-- kept with it, so that a retry enqueues a cancelled step again waiting as it was declared.
INSERT INTO {{schema}}.workflow_steps (workflow_id, step, job_id, depends_on, await_signal, await_timeout_ms,
                                       await_on_timeout, dependency_delay_ms)
SELECT ?, s.step, s.job_id, ARRAY(SELECT jsonb_array_elements_text(s.depends_on::jsonb)), s.await_signal,
       s.await_timeout_ms, s.await_on_timeout, s.dependency_delay_ms
  FROM unnest(?::text[], ?::bigint[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::bigint[])
       AS s(step, job_id, depends_on, await_signal, await_timeout_ms, await_on_timeout, dependency_delay_ms)

-- name: workflowFind
SELECT id, name, dependency_mode, created_at FROM {{schema}}.workflows WHERE id = ?

-- name: workflowSteps
-- Each step with where its job is now; a job in none of the tables (history retention) has no state.
SELECT s.step, s.job_id, s.depends_on, coalesce(j.kind, h.kind, d.kind) AS kind,
       coalesce(j.state, h.state, CASE WHEN d.id IS NOT NULL THEN 'dead' END) AS state
  FROM {{schema}}.workflow_steps s
  LEFT JOIN {{schema}}.jobs j ON j.id = s.job_id
  LEFT JOIN LATERAL (SELECT kind, state FROM {{schema}}.job_history WHERE id = s.job_id LIMIT 1) h ON true
  LEFT JOIN {{schema}}.dead_jobs d ON d.id = s.job_id
 WHERE s.workflow_id = ?
 ORDER BY s.job_id

-- name: workflowCancel
-- Every live step at once, to the history as cancelled; a running step's worker finds out at its next
-- heartbeat. Steps that waited for them are in the same statement, so the trigger finds none to settle.
WITH gone AS (
    DELETE FROM {{schema}}.jobs
     WHERE id IN (SELECT job_id FROM {{schema}}.workflow_steps WHERE workflow_id = ?)
    RETURNING *
), moved AS (
    INSERT INTO {{schema}}.job_history ({{jobColumns}}, state)
    SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts, tenant, unique_key,
           metadata || jsonb_build_object('docket.cancelReason', 'workflow cancelled'), errors, created_at,
           attempted_at, sequence_key, sequence_halt, output, progress, logs, 'cancelled'
      FROM gone
)
SELECT count(*) AS cancelled FROM gone

-- name: workflowRetryTargets
-- The steps a retry re-runs: dead ones (replayed) and cancelled ones (enqueued again from their
-- history row). Locks the workflow's steps, so two retries of one workflow run one after the other.
SELECT s.step, s.job_id, s.depends_on, d.id IS NOT NULL AS dead, s.await_signal, s.await_timeout_ms,
       s.await_on_timeout, s.dependency_delay_ms,
       h.queue, h.kind, h.payload::text AS payload, h.payload_version, h.priority, h.max_attempts, h.tenant,
       (h.metadata - 'docket.cancelReason')::text AS metadata
  FROM {{schema}}.workflow_steps s
  LEFT JOIN {{schema}}.dead_jobs d ON d.id = s.job_id
  LEFT JOIN {{schema}}.job_history h ON h.id = s.job_id AND h.state = 'cancelled'
 WHERE s.workflow_id = ? AND (d.id IS NOT NULL OR h.id IS NOT NULL)
   FOR UPDATE OF s

-- name: workflowStepJobs
SELECT step, job_id FROM {{schema}}.workflow_steps WHERE workflow_id = ?

-- name: workflowMoveStep
UPDATE {{schema}}.workflow_steps SET job_id = ? WHERE workflow_id = ? AND step = ?
