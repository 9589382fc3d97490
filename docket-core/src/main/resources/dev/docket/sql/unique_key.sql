-- Unique keys held for a period (uniqueFor), beyond the life of the job that took them.

-- name: uniqueKeyAcquire
-- Takes a unique key for a period, or renews it once its period is over; returns nothing while it is held.
INSERT INTO {{schema}}.unique_keys AS u (key, job_id, expires_at)
VALUES (?, ?, now() + ? * interval '1 millisecond')
ON CONFLICT (key) DO UPDATE SET job_id = EXCLUDED.job_id, expires_at = EXCLUDED.expires_at
 WHERE u.expires_at <= now()
RETURNING job_id

-- name: uniqueKeyHolder
SELECT job_id FROM {{schema}}.unique_keys WHERE key = ?

-- name: uniqueKeyPoint
UPDATE {{schema}}.unique_keys SET job_id = ? WHERE key = ?

-- name: uniqueKeyDeleteExpired
DELETE FROM {{schema}}.unique_keys
 WHERE key = ANY (ARRAY(SELECT key FROM {{schema}}.unique_keys WHERE expires_at < now() LIMIT ?))
