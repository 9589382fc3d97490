-- Signals sent to jobs, and the waits they end (migration V015: the functions signal and await_signals
-- hold the protocol; the statements here call them or read what they wrote).

-- name: signalSend
-- In the caller's transaction when it gives one: the signal exists, and ends its job's wait, if and only
-- if that transaction commits. The library notifies the queue of a job made ready itself (rate-limited).
SELECT result, queue FROM {{schema}}.signal(?, ?, ?::jsonb, ?, false)

-- name: signalSendInClear
-- A signal whose payload is in clear, sent only if its job's payload is not encrypted at rest (an envelope: an
-- object whose only field is docket:encrypted), in one statement: a signal to a job in clear costs one primary-key
-- probe more and no round trip. The lateral subquery is kept apart (OFFSET 0) so that its condition, which names
-- none of its own rows, is a one-time filter checked before signal() runs. A job whose payload is encrypted gets
-- a row of nulls and no signal: the library encrypts the payload and sends it with signalSend.
SELECT s.result, s.queue
  FROM (SELECT coalesce((SELECT jsonb_typeof(j.payload -> 'docket:encrypted') = 'object'
                                AND (j.payload - 'docket:encrypted') = '{}'::jsonb
                           FROM {{schema}}.jobs j WHERE j.id = ?), false) AS encrypted) t
  LEFT JOIN LATERAL (SELECT * FROM {{schema}}.signal(?, ?, ?::jsonb, ?, false) WHERE NOT t.encrypted OFFSET 0) s
         ON true

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
