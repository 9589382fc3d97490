-- Docket schema: debounced enqueues (issue 28). Enqueues of one kind with the same debounce key collapse
-- into one job while it has not started: the job runs once its window has passed since the last enqueue,
-- with the last payload, and at the latest at its deadline (the first enqueue plus the maximum wait).
--
-- debounce_key: the key of a debounced job, else NULL (nearly every job). debounce_deadline: the latest
-- run time the enqueues may push it to. Neither is written by any statement but the debounced enqueue.
ALTER TABLE {{schema}}.jobs
    ADD COLUMN debounce_key      text,
    ADD COLUMN debounce_deadline timestamptz;

-- The arbiter of the debounced enqueue's INSERT ... ON CONFLICT: at most one not-yet-started job per kind
-- and key. attempted_at is set by every claim and never cleared (a retry, a release or a wait keeps it), so
-- a job leaves this index when it is first claimed and never comes back: an enqueue during or after its
-- run makes the next job, and no later update of a started job can collide with that next job. The claim
-- statements are unchanged (they already change state and attempted_at, so they were never HOT updates);
-- a job without a key is in no part of this index.
CREATE UNIQUE INDEX jobs_debounce_key_idx ON {{schema}}.jobs (kind, debounce_key)
    WHERE debounce_key IS NOT NULL AND attempted_at IS NULL;
