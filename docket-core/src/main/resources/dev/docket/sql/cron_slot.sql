-- Cron slots: the last enqueued slot of each periodic job.

-- name: cronSlotFind
SELECT last_slot FROM {{schema}}.cron_slots WHERE name = ?

-- name: cronSlotInit
INSERT INTO {{schema}}.cron_slots (name, last_slot) VALUES (?, ?) ON CONFLICT (name) DO NOTHING

-- name: cronSlotAdvance
-- Advances only forward: of two leaders racing for one slot, exactly one updates the row.
UPDATE {{schema}}.cron_slots SET last_slot = ?, updated_at = now()
 WHERE name = ? AND last_slot < ?
