-- The cluster's outcome counters (migration V014): folded totals in job_counts, the outcome
-- statements' appended deltas in job_count_deltas.

-- name: jobCountFold
-- Moves a page of deltas into the totals in one statement, so a reader adding both up never sees a
-- delta twice or not at all. Rows are taken by ctid and SKIP LOCKED: a second node folding at the
-- same moment (a leader change) takes other rows instead of waiting for these. The totals are
-- upserted in one order, so two folds never wait on each other in a cycle.
WITH moved AS (
    DELETE FROM {{schema}}.job_count_deltas
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM {{schema}}.job_count_deltas LIMIT ? FOR UPDATE SKIP LOCKED))
    RETURNING queue, kind, completed, failed, dead
), folded AS (
    INSERT INTO {{schema}}.job_counts AS t (queue, kind, completed, failed, dead)
    SELECT queue, kind, sum(completed), sum(failed), sum(dead) FROM moved
     GROUP BY queue, kind
     ORDER BY queue, kind
    ON CONFLICT (queue, kind) DO UPDATE
       SET completed = t.completed + EXCLUDED.completed, failed = t.failed + EXCLUDED.failed,
           dead = t.dead + EXCLUDED.dead
)
SELECT count(*) AS moved FROM moved

-- name: jobCountTotals
-- One statement, so one snapshot: a fold that commits meanwhile is seen whole or not at all.
SELECT queue, kind, sum(completed)::bigint AS completed, sum(failed)::bigint AS failed, sum(dead)::bigint AS dead
  FROM (SELECT queue, kind, completed, failed, dead FROM {{schema}}.job_counts
        UNION ALL
        SELECT queue, kind, completed, failed, dead FROM {{schema}}.job_count_deltas) c
 GROUP BY queue, kind
 ORDER BY queue, kind
