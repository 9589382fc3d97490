-- Cron slots: the last enqueued slot of each periodic job.

-- name: cronSlotFind
SELECT last_slot FROM {{schema}}.cron_slots WHERE name = ?

-- name: cronSlotInit
INSERT INTO {{schema}}.cron_slots (name, last_slot) VALUES (?, ?) ON CONFLICT (name) DO NOTHING

-- name: cronSlotAdvance
-- Advances only forward: of two leaders racing for one slot, exactly one updates the row.
UPDATE {{schema}}.cron_slots SET last_slot = ?, updated_at = now()
 WHERE name = ? AND last_slot < ?

-- name: cronSlotAdvanceStored
-- As cronSlotAdvance, for a schedule stored in the database: only while the schedule the leader read is
-- still the current version and not paused, so an edit, a pause or a delete committed before the slot's
-- transaction stops the slot of the old definition.
UPDATE {{schema}}.cron_slots SET last_slot = ?, updated_at = now()
 WHERE name = ? AND last_slot < ?
   AND EXISTS (SELECT 1 FROM {{schema}}.schedules s
                WHERE s.name = cron_slots.name AND s.origin = 'runtime' AND s.version = ? AND NOT s.paused)

-- name: cronSlotRestart
-- A schedule created, given a new cron or zone, or resumed starts with its next slot: the slots before
-- now are never enqueued (last_slot never moves back, so no slot already enqueued comes again).
INSERT INTO {{schema}}.cron_slots (name, last_slot) VALUES (?, now())
ON CONFLICT (name) DO UPDATE SET last_slot = greatest(cron_slots.last_slot, now()), updated_at = now()

-- name: cronSlotDelete
DELETE FROM {{schema}}.cron_slots WHERE name = ?
