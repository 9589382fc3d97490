-- Sequences (JobOptions.sequenceKey): what holds a key's jobs back. The transitions themselves are
-- the jobs table's triggers (migration V010), so that no path that inserts or removes a job can
-- miss them; this file only reads.

-- name: sequenceBlocker
-- What a waiting job of a sequence waits for: the head (the job that holds the key now), a dead
-- job that halts the key, and how many waiting jobs of the key are ahead of it. Each is an index
-- probe (jobs_sequence_idx, dead_jobs_sequence_halt_idx).
SELECT (SELECT min(id) FROM {{schema}}.jobs WHERE sequence_key = ? AND state <> 'waiting') AS head,
       (SELECT min(id) FROM {{schema}}.dead_jobs WHERE sequence_key = ? AND sequence_halt) AS halted_by,
       (SELECT count(*) FROM {{schema}}.jobs WHERE sequence_key = ? AND state = 'waiting' AND id < ?) AS waiting_ahead

-- name: sequenceLockMany
-- Takes the locks of a bulk enqueue's sequence keys in one order (sorted), before its insert takes
-- them row by row: two bulk enqueues that share keys then queue up instead of deadlocking.
SELECT count({{schema}}.sequence_lock(k)) AS locked
  FROM (SELECT DISTINCT k FROM unnest(?::text[]) AS u(k) WHERE k IS NOT NULL ORDER BY k) s
