-- Signals sent to jobs, and the waits they end (migration V015: the functions signal and await_signals
-- hold the protocol; the statements here call them or read what they wrote).

-- name: signalSend
-- In the caller's transaction when it gives one: the signal exists, and ends its job's wait, if and only
-- if that transaction commits. The library notifies the queue of a job made ready itself (rate-limited).
SELECT result, queue FROM {{schema}}.signal(?, ?, ?::jsonb, ?, false)

-- name: signalTargetEncrypted
-- Whether a job's payload is an encryption envelope (an object whose only field is docket:encrypted): the
-- library encrypts the signals of such a job before it sends them.
SELECT jsonb_typeof(payload -> 'docket:encrypted') = 'object' AND (payload - 'docket:encrypted') = '{}'::jsonb
       AS encrypted
  FROM {{schema}}.jobs
 WHERE id = ?

-- name: signalLatest
-- What a handler reads: the newest signal of the name sent to its job, whether a wait took it or not.
SELECT payload::text AS payload FROM {{schema}}.signals
 WHERE job_id = ? AND name = ?
 ORDER BY id DESC
 LIMIT 1

-- name: signalListForJob
-- A job's latest signals (newest first; the caller shows them oldest first), payloads included: the
-- API redacts them for roles that may not see payloads.
SELECT id, name, payload::text AS payload, sent_by, sent_at, resumed_at FROM {{schema}}.signals
 WHERE job_id = ?
 ORDER BY id DESC
 LIMIT ?

-- name: signalDeleteFinished
-- One page of signals of jobs that are no longer live, sent before the retention: oldest first, so that
-- signals kept for jobs that still wait (few) are the only rows a page reads past.
DELETE FROM {{schema}}.signals
 WHERE id = ANY (ARRAY(
           SELECT s.id FROM {{schema}}.signals s
            WHERE s.sent_at < now() - ? * interval '1 millisecond'
              AND NOT EXISTS (SELECT 1 FROM {{schema}}.jobs j WHERE j.id = s.job_id)
            ORDER BY s.sent_at
            LIMIT ?))
