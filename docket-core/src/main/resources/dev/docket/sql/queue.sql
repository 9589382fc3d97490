-- Queues: cluster-wide settings (paused, caps) and the notifications that wake workers.

-- name: queueNotify
SELECT pg_notify('{{channel}}', q) FROM unnest(?::text[]) AS q

-- name: queueClaimLock
-- Serializes the claimers of one capped queue until their transaction ends (see jobClaimCapped).
SELECT pg_advisory_xact_lock(hashtext('docket.claim.{{schema_name}}.' || ?))

-- name: queueList
SELECT name, paused, max_running, tenant_max_running, updated_at FROM {{schema}}.queues ORDER BY name

-- name: queueSetPaused
-- A changed queue wakes its workers: a resumed queue is claimed at once, not at the next poll.
WITH upsert AS (
    INSERT INTO {{schema}}.queues AS q (name, paused) VALUES (?, ?)
    ON CONFLICT (name) DO UPDATE SET paused = EXCLUDED.paused, updated_at = now()
    RETURNING name
)
SELECT name, pg_notify('{{channel}}', name) FROM upsert

-- name: queueSetLimits
WITH upsert AS (
    INSERT INTO {{schema}}.queues AS q (name, max_running, tenant_max_running) VALUES (?, ?, ?)
    ON CONFLICT (name) DO UPDATE
       SET max_running = EXCLUDED.max_running, tenant_max_running = EXCLUDED.tenant_max_running,
           updated_at = now()
    RETURNING name
)
SELECT name, pg_notify('{{channel}}', name) FROM upsert

-- name: queueKnown
-- Whether a queue exists for an operator: it has settings of its own, or a job live, finished or
-- dead. Only the history has an index that leads with the queue; an unknown name reads the live and
-- dead tables through, which is fine for an operator's command but not for a hot path.
SELECT EXISTS (SELECT 1 FROM {{schema}}.queues WHERE name = ?)
    OR EXISTS (SELECT 1 FROM {{schema}}.jobs WHERE queue = ?)
    OR EXISTS (SELECT 1 FROM {{schema}}.job_history WHERE queue = ?)
    OR EXISTS (SELECT 1 FROM {{schema}}.dead_jobs WHERE queue = ?) AS known
