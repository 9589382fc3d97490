-- Schedules: periodic jobs stored in the database (origin 'runtime') and the code-declared ones a
-- leader wrote for display (origin 'code'); schedule_runs: the jobs of each schedule's last slots.

-- fragment: scheduleColumns
s.name, s.origin, s.cron, s.zone, s.kind, s.payload::text AS payload, s.queue, s.priority, s.max_attempts,
s.catch_up, s.paused, s.version, s.created_at, s.created_by, s.updated_at, s.updated_by,
(SELECT c.last_slot FROM {{schema}}.cron_slots c WHERE c.name = s.name) AS last_slot,
-- Served: a live worker handles the kind (on the schedule's queue, when it names one), as strictKinds asks.
EXISTS (SELECT 1 FROM {{schema}}.workers w
         WHERE {{workerLive}} AND w.kinds -> s.kind IS NOT NULL AND (s.queue IS NULL OR w.queues -> s.queue IS NOT NULL))
       AS kind_served

-- name: scheduleList
SELECT {{scheduleColumns}} FROM {{schema}}.schedules s ORDER BY s.name

-- name: scheduleFind
SELECT {{scheduleColumns}} FROM {{schema}}.schedules s WHERE s.name = ?

-- name: scheduleListRuntime
-- The leader's read each round: a small table, every row.
SELECT name, cron, zone, kind, payload::text AS payload, queue, priority, max_attempts, catch_up, version
  FROM {{schema}}.schedules WHERE origin = 'runtime' AND NOT paused

-- name: scheduleDeclare
-- A leader's code declarations, one array per column; a row stored at run time under the same name is
-- left as it is, and an unchanged declaration writes nothing.
INSERT INTO {{schema}}.schedules AS s (name, origin, cron, zone, kind, payload, queue, priority, max_attempts,
                                       created_by, updated_by)
SELECT d.name, 'code', d.cron, d.zone, d.kind, d.payload::jsonb, d.queue, d.priority, d.max_attempts, 'code', 'code'
  FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int2[], ?::int4[])
       AS d(name, cron, zone, kind, payload, queue, priority, max_attempts)
ON CONFLICT (name) DO UPDATE
   SET cron = excluded.cron, zone = excluded.zone, kind = excluded.kind, payload = excluded.payload,
       queue = excluded.queue, priority = excluded.priority, max_attempts = excluded.max_attempts,
       version = s.version + 1, updated_at = now()
 WHERE s.origin = 'code'
   AND (s.cron, s.zone, s.kind, s.payload, s.queue, s.priority, s.max_attempts)
       IS DISTINCT FROM (excluded.cron, excluded.zone, excluded.kind, excluded.payload, excluded.queue,
                         excluded.priority, excluded.max_attempts)

-- name: scheduleInsert
INSERT INTO {{schema}}.schedules (name, origin, cron, zone, kind, payload, queue, priority, max_attempts, catch_up,
                                  paused, created_by, updated_by)
VALUES (?, 'runtime', ?, ?, ?, ?::jsonb, ?, ?, ?, ?, false, ?, ?)
ON CONFLICT (name) DO NOTHING

-- name: scheduleLock
SELECT origin, cron, zone FROM {{schema}}.schedules WHERE name = ? FOR UPDATE

-- name: scheduleUpdate
UPDATE {{schema}}.schedules
   SET cron = ?, zone = ?, kind = ?, payload = ?::jsonb, queue = ?, priority = ?, max_attempts = ?, catch_up = ?,
       version = version + 1, updated_at = now(), updated_by = ?
 WHERE name = ? AND origin = 'runtime'

-- name: scheduleSetPaused
UPDATE {{schema}}.schedules
   SET paused = ?, version = version + 1, updated_at = now(), updated_by = ?
 WHERE name = ? AND origin = 'runtime'

-- name: scheduleDelete
DELETE FROM {{schema}}.schedules WHERE name = ? AND origin = 'runtime'

-- name: scheduleRunInsert
INSERT INTO {{schema}}.schedule_runs (name, slot, job_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING

-- name: scheduleRunPrune
-- Keeps the 20 newest slots of the schedule.
DELETE FROM {{schema}}.schedule_runs
 WHERE name = ? AND slot <= (SELECT slot FROM {{schema}}.schedule_runs WHERE name = ?
                              ORDER BY slot DESC OFFSET 20 LIMIT 1)

-- name: scheduleRunDelete
DELETE FROM {{schema}}.schedule_runs WHERE name = ?

-- name: scheduleRunList
-- Each run's job wherever it lives now; a job pruned from the history has no state.
SELECT r.slot, r.job_id, r.enqueued_at,
       coalesce((SELECT j.state::text FROM {{schema}}.jobs j WHERE j.id = r.job_id),
                (SELECT h.state::text FROM {{schema}}.job_history h WHERE h.id = r.job_id LIMIT 1),
                (SELECT 'dead' FROM {{schema}}.dead_jobs d WHERE d.id = r.job_id)) AS state
  FROM {{schema}}.schedule_runs r
 WHERE r.name = ?
 ORDER BY r.slot DESC
 LIMIT ?
