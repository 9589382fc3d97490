-- SLOs: per queue, the lag objective; per kind, the pickup p99 objective.

-- name: sloList
SELECT scope, name, seconds, updated_at FROM {{schema}}.slos ORDER BY scope, name

-- name: sloSet
INSERT INTO {{schema}}.slos (scope, name, seconds) VALUES (?, ?, ?)
ON CONFLICT (scope, name) DO UPDATE SET seconds = EXCLUDED.seconds, updated_at = now()

-- name: sloClear
DELETE FROM {{schema}}.slos WHERE scope = ? AND name = ?
