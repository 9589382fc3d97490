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
-- sequenceLockJobs takes its keys in this same order (ORDER BY k, the database's collation).
SELECT count({{schema}}.sequence_lock(k)) AS locked
  FROM (SELECT DISTINCT k FROM unnest(?::text[]) AS u(k) WHERE k IS NOT NULL ORDER BY k) s

-- name: sequenceLockJobs
-- Before a statement takes several heads out of the jobs table (a completer's batch, a rescue page),
-- locks those rows and then their keys in sequenceLockMany's order: the removal's trigger would take
-- the keys in row order, and a bulk enqueue holding one of them while it waits for another would
-- deadlock with it. Rows first, all of them (the sort reads its whole input before it locks a key):
-- a writer that holds one of the rows never waits for a key this statement holds.
SELECT count({{schema}}.sequence_lock(k)) AS locked
  FROM (SELECT DISTINCT j.sequence_key AS k
          FROM (SELECT sequence_key FROM {{schema}}.jobs WHERE id = ANY (?::bigint[]) FOR UPDATE) j
         WHERE j.sequence_key IS NOT NULL
         ORDER BY k) s
