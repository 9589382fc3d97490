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
