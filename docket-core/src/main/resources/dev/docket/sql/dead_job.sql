-- The dead-letter table: jobs that failed for good, with their whole error history.

-- name: deadJobInsertFromJobs
WITH gone AS (
    DELETE FROM {{schema}}.jobs j
     USING unnest(?::bigint[], ?::int[], ?::text[], ?::text[]) AS f(id, attempt, error, reason)
     WHERE {{jobFence}}
    RETURNING j.*, f.error AS f_error, f.reason AS f_reason
), counted AS (
    INSERT INTO {{schema}}.job_count_deltas (queue, kind, failed, dead)
    SELECT queue, kind, count(*), count(*) FROM gone GROUP BY queue, kind
)
INSERT INTO {{schema}}.dead_jobs ({{jobColumns}}, reason)
SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts,
       tenant, unique_key, metadata,
       errors || jsonb_build_array(jsonb_build_object(
           'attempt', attempt, 'at', now(), 'error', f_error, 'worker', locked_by)),
       created_at, attempted_at, sequence_key, sequence_halt, output, progress, logs, f_reason
  FROM gone
RETURNING id, attempt

-- name: deadJobInsertExpired
-- Takes the page of expired leases (jobExpiredLeases) whose attempts are used up.
WITH gone AS (
    DELETE FROM {{schema}}.jobs
     WHERE id = ANY (?::bigint[]) AND state = 'running' AND lease_until < now()
       AND attempt >= max_attempts
    RETURNING *
), counted AS (
    INSERT INTO {{schema}}.job_count_deltas (queue, kind, failed, dead)
    SELECT queue, kind, count(*), count(*) FROM gone GROUP BY queue, kind
)
INSERT INTO {{schema}}.dead_jobs ({{jobColumns}}, reason)
SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts,
       tenant, unique_key, metadata,
       errors || jsonb_build_array(jsonb_build_object(
           'attempt', attempt, 'at', now(), 'worker', locked_by,
           'error', 'lease expired: worker ' || coalesce(locked_by, '?') || ' lost its lease')),
       created_at, attempted_at, sequence_key, sequence_halt, output, progress, logs,
       'attempts exhausted (' || max_attempts || '); the last worker lost its lease'
  FROM gone
RETURNING id, queue, kind

-- name: deadJobInsertAwaitTimedOut
-- Waits for a signal that time out with 'fail': the job dies, its reason and a last error naming the signal.
WITH gone AS (
    DELETE FROM {{schema}}.jobs
     WHERE id = ANY (?::bigint[]) AND state = 'waiting' AND await_on_timeout = 'fail' AND await_deadline <= now()
    RETURNING *, 'signal ''' || await_signal || ''' did not arrive by '
                 || to_char(await_deadline AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS why
)
INSERT INTO {{schema}}.dead_jobs ({{jobColumns}}, reason)
SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts,
       tenant, unique_key, metadata,
       errors || jsonb_build_array(jsonb_build_object('attempt', attempt, 'at', now(), 'error', why)),
       created_at, attempted_at, sequence_key, sequence_halt, output, progress, logs, why
  FROM gone
RETURNING id, queue, kind

-- name: deadJobDeleteExpired
DELETE FROM {{schema}}.dead_jobs
 WHERE id = ANY (ARRAY(
           SELECT id FROM {{schema}}.dead_jobs
            WHERE died_at < now() - ? * interval '1 millisecond'
            LIMIT ?))

-- fragment: deadJobMatches
-- The filter of listings and replays (parameters: kind, kind, text, text, text, signature,
-- signature, before id; DeadJobQueries.bindFilter binds them).
-- The text filter reads the error messages (each errors[].error) and the reason, never the JSON
-- of the error history: its keys ("attempt", "worker") and punctuation ("{", ":") would match
-- every dead job, and bulk replay by filter would then replay the whole table.
(?::text IS NULL OR kind = ?)
   AND (?::text IS NULL
        OR strpos(lower(reason), lower(?)) > 0
        OR EXISTS (SELECT 1 FROM jsonb_array_elements(errors) AS e
                    WHERE strpos(lower(e ->> 'error'), lower(?)) > 0))
   AND (?::text IS NULL OR error_signature = ?)
   AND id < ?

-- name: deadJobDiscard
-- A dead job that halts its sequence releases it here (the dead_jobs trigger of migration V010).
DELETE FROM {{schema}}.dead_jobs WHERE id = ?

-- name: deadJobList
SELECT {{jobSummaryColumns}}, 'dead' AS state, died_at AS finished_at,
       jsonb_array_length(errors) AS error_count, reason
  FROM {{schema}}.dead_jobs
 WHERE {{deadJobMatches}}
 ORDER BY id DESC
 LIMIT ?

-- name: deadJobGroups
-- Groups by kind and error signature (deadJobSignMany fills signatures in first); each group shows
-- the first line of its newest job's last error as an example, read from that one row only.
SELECT g.kind, g.error_signature,
       left(split_part(coalesce(d.errors -> -1 ->> 'error', d.reason), E'\n', 1), 500) AS example,
       g.jobs, g.first_died_at, g.last_died_at
  FROM (SELECT kind, error_signature, count(*) AS jobs, max(id) AS newest,
               min(died_at) AS first_died_at, max(died_at) AS last_died_at
          FROM {{schema}}.dead_jobs
         WHERE (?::text IS NULL OR kind = ?)
         GROUP BY kind, error_signature
         ORDER BY count(*) DESC, max(died_at) DESC, kind, error_signature
         LIMIT ?) g
  JOIN {{schema}}.dead_jobs d ON d.id = g.newest
 ORDER BY g.jobs DESC, g.last_died_at DESC, g.kind, g.error_signature

-- name: deadJobUnsigned
-- A page of dead jobs without a signature yet, with the text it is computed from: the last error,
-- or the reason when the job has none (ErrorSignature reads only its first line).
SELECT id, left(coalesce(errors -> -1 ->> 'error', reason), 4000) AS error
  FROM {{schema}}.dead_jobs
 WHERE error_signature IS NULL
 ORDER BY id
 LIMIT ?

-- name: deadJobSignMany
UPDATE {{schema}}.dead_jobs d
   SET error_signature = s.signature
  FROM unnest(?::bigint[], ?::text[]) AS s(id, signature)
 WHERE d.id = s.id AND d.error_signature IS NULL

-- name: deadJobPayloadsForRepair
-- A page of a group's dead jobs with their payloads, locked until the repair's transaction ends so
-- that a replay cannot take a job between its read and its write.
SELECT id, payload::text AS payload
  FROM {{schema}}.dead_jobs
 WHERE {{deadJobMatches}}
 ORDER BY id DESC
 LIMIT ?
   FOR UPDATE

-- name: deadJobRepairMany
-- Replaces dead jobs' payloads and records each repair in the job's metadata, under
-- "docket.repairs" (who, when, how; never the payload), which stays with the job when it is replayed.
UPDATE {{schema}}.dead_jobs d
   SET payload = r.payload::jsonb,
       metadata = d.metadata || jsonb_build_object('docket.repairs',
           coalesce(d.metadata -> 'docket.repairs', '[]'::jsonb)
           || jsonb_build_array(jsonb_build_object('at', now(), 'by', ?::text, 'how', ?::text)))
  FROM unnest(?::bigint[], ?::text[]) AS r(id, payload)
 WHERE d.id = r.id

-- name: deadJobReplay
-- Replays dead jobs: back to ready with a fresh attempt budget, keeping their error history (a
-- job of a sequence that has a head waits behind it: the jobs table's sequence_enter trigger).
-- A dead job whose unique key a live job holds now stays dead (replaying it would duplicate).
WITH revived AS (
    DELETE FROM {{schema}}.dead_jobs d
     WHERE d.id = ANY (?::bigint[])
       AND NOT EXISTS (SELECT 1 FROM {{schema}}.jobs j WHERE j.unique_key = d.unique_key)
    RETURNING d.*
), inserted AS (
    INSERT INTO {{schema}}.jobs (id, queue, kind, payload, payload_version, priority, state, run_at,
                                 attempt, max_attempts, tenant, unique_key, metadata, errors, created_at,
                                 sequence_key, sequence_halt)
    SELECT id, queue, kind, payload, payload_version, priority, 'ready', now(), 0, max_attempts,
           tenant, unique_key, metadata, errors, created_at, sequence_key, sequence_halt
      FROM revived
    RETURNING id, queue
)
SELECT id, pg_notify('{{channel}}', queue) FROM inserted

-- fragment: deadJobReplayColumns
id, kind, error_contains, signature, before_id, rate_per_second, max_jobs, matched, scanned, replayed, state,
created_at, finished_at

-- name: deadJobReplayStart
-- Starts a replay: counts the dead jobs that match now (with the listing's own filter, so the two
-- never disagree), at most max_jobs, and starts the keyset cursor above the newest of them.
WITH m AS (
    SELECT count(*)::int AS n, max(id) AS top
      FROM (SELECT id FROM {{schema}}.dead_jobs WHERE {{deadJobMatches}} ORDER BY id DESC LIMIT ?) l
)
INSERT INTO {{schema}}.dead_job_replays
       (kind, error_contains, signature, before_id, rate_per_second, max_jobs, matched, next_before, state, finished_at)
SELECT ?, ?, ?, ?, ?, ?, m.n, m.top + 1, CASE WHEN m.n = 0 THEN 'done' ELSE 'running' END,
       CASE WHEN m.n = 0 THEN now() END
  FROM m
RETURNING {{deadJobReplayColumns}}

-- name: deadJobReplayTurn
-- One turn of every running replay: each earns rate_per_second jobs per second of the database
-- clock since its last turn, up to one second's worth (so a leader that was away does not make
-- up for it in a burst).
UPDATE {{schema}}.dead_job_replays
   SET credit = least(greatest(rate_per_second, 1),
                      credit + rate_per_second * extract(epoch FROM now() - turned_at)),
       turned_at = now()
 WHERE state = 'running'
RETURNING id, kind, error_contains, signature, next_before, max_jobs - scanned AS remaining, credit

-- name: deadJobReplayAdvance
UPDATE {{schema}}.dead_job_replays
   SET scanned = scanned + ?, replayed = replayed + ?, next_before = ?, credit = credit - ?,
       state = CASE WHEN ? THEN 'done' ELSE state END,
       finished_at = CASE WHEN ? THEN now() END
 WHERE id = ? AND state = 'running'

-- name: deadJobReplayFind
SELECT {{deadJobReplayColumns}} FROM {{schema}}.dead_job_replays WHERE id = ?

-- name: deadJobReplayList
SELECT {{deadJobReplayColumns}} FROM {{schema}}.dead_job_replays ORDER BY id DESC LIMIT ?

-- name: deadJobReplayDeleteFinished
DELETE FROM {{schema}}.dead_job_replays
 WHERE state = 'done' AND finished_at < now() - ? * interval '1 millisecond'
