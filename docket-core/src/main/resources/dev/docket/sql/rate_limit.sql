-- Rate limits: at most `permits` job starts per `period` of a kind or a queue, cluster-wide. The
-- claim of a queue they concern runs rateLimitLock, rateLimitUsage, jobClaimRateLimited and
-- rateLimitRecordStarts in one transaction (RateLimitQueries.claim).

-- fragment: rateLimitColumns
scope, name, permits, period_ms, per_tenant, edited, updated_at

-- name: rateLimitList
SELECT {{rateLimitColumns}} FROM {{schema}}.rate_limits ORDER BY scope, name

-- name: rateLimitDeclare
-- A node's declared limits (Docket.Builder.rateLimit) are written when its worker starts; a limit
-- edited at run time keeps its edited values. Declaring a limit wakes nobody: it only holds work back.
INSERT INTO {{schema}}.rate_limits AS r (scope, name, permits, period_ms, per_tenant)
SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::bigint[], ?::boolean[])
ON CONFLICT (scope, name) DO UPDATE
   SET permits = EXCLUDED.permits, period_ms = EXCLUDED.period_ms, per_tenant = EXCLUDED.per_tenant,
       updated_at = now()
 WHERE NOT r.edited
   AND (r.permits, r.period_ms, r.per_tenant) IS DISTINCT FROM (EXCLUDED.permits, EXCLUDED.period_ms, EXCLUDED.per_tenant)

-- name: rateLimitSet
-- An edit at run time (API, CLI, dashboard): takes effect at the next claim, and stays over what
-- nodes declare until it is removed. A limit whose partitioning changes starts with empty windows.
-- Raising a limit may free held-back jobs at once, so the limit's queue (for a kind's limit, every
-- queue of the workers that serve the kind) is woken.
WITH upsert AS (
    INSERT INTO {{schema}}.rate_limits AS r (scope, name, permits, period_ms, per_tenant, edited)
    VALUES (?, ?, ?, ?, ?, true)
    ON CONFLICT (scope, name) DO UPDATE
       SET permits = EXCLUDED.permits, period_ms = EXCLUDED.period_ms, per_tenant = EXCLUDED.per_tenant,
           edited = true, updated_at = now()
    RETURNING scope, name, per_tenant
), cleared AS (
    DELETE FROM {{schema}}.rate_limit_windows w
     USING upsert u
     WHERE w.scope = u.scope AND w.name = u.name AND (w.bucket = '') = u.per_tenant
)
SELECT pg_notify('{{channel}}', q.queue)
  FROM upsert u
 CROSS JOIN LATERAL (SELECT u.name AS queue WHERE u.scope = 'queue'
                     UNION
                     SELECT jsonb_object_keys(w.queues) FROM {{schema}}.workers w
                      WHERE u.scope = 'kind' AND w.kinds -> u.name IS NOT NULL) q

-- name: rateLimitRemove
-- Removes a limit (declared or edited) until a node that declares it starts again.
WITH gone AS (
    DELETE FROM {{schema}}.rate_limits WHERE scope = ? AND name = ? RETURNING scope, name
)
SELECT count(*) AS removed FROM gone

-- name: rateLimitLock
-- Every limit a claim of one queue must respect: the queue's own, and those of the kinds the worker
-- has handlers for (a job of another kind runs no handler on this worker: it fails with "no
-- handler", as without limits). The claimers they concern serialize on these rows (in one order, so
-- two claimers never deadlock) until their transaction ends: what a claim reads of the windows stays
-- true until it has recorded its starts.
SELECT {{rateLimitColumns}}
  FROM {{schema}}.rate_limits
 WHERE (scope = 'queue' AND name = ?) OR (scope = 'kind' AND name = ANY (?::text[]))
 ORDER BY scope, name
   FOR NO KEY UPDATE

-- name: rateLimitUsage
-- The claim's time, and the starts of the last period per bucket of the given limits, for the buckets
-- that had any, with when the next permit frees (only meaningful when used >= permits): the time at
-- which the starts younger than one period fall to permits - 1. The time is the clock's after the
-- limits' rows were locked, not now(), the transaction's start: claimers serialized on a limit then
-- see their times increase in the order they hold it, so one that waited long for the lock cannot
-- record starts, or drop old ones, at a time before those of a claim that went first. Buckets whose
-- starts are all older than a period go (a tenant that stopped enqueueing costs nothing after one
-- period). There is always a row, with the time.
WITH t AS MATERIALIZED (
    SELECT clock_timestamp() AS t
), l AS (
    SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::bigint[]) AS l(scope, name, permits, period_ms)
), stale AS (
    DELETE FROM {{schema}}.rate_limit_windows w
     USING l, t
     WHERE w.scope = l.scope AND w.name = l.name
       AND w.at[cardinality(w.at)] <= t.t - l.period_ms * interval '1 millisecond'
)
SELECT t.t AS claim_time, u.scope, u.name, u.bucket, u.used, u.next_at
  FROM t
  LEFT JOIN LATERAL (
       SELECT w.scope, w.name, w.bucket, s.used, s.next_at
         FROM {{schema}}.rate_limit_windows w
         JOIN l ON w.scope = l.scope AND w.name = l.name
        CROSS JOIN LATERAL (
              SELECT sum(e.n) AS used,
                     min(e.at) FILTER (WHERE e.newer - e.n <= l.permits - 1)
                         + l.period_ms * interval '1 millisecond' AS next_at
                FROM (SELECT x.at, x.n, sum(x.n) OVER (ORDER BY x.at DESC ROWS UNBOUNDED PRECEDING) AS newer
                        FROM unnest(w.at, w.n) AS x(at, n)
                       WHERE x.at > t.t - l.period_ms * interval '1 millisecond') e) s
        WHERE s.used > 0) u ON true

-- name: rateLimitRecordStarts
-- Appends this claim's starts (n per bucket, at the claim's time) to the windows, dropping the starts
-- older than one period and merging the rest into slots of period/64, each at the latest start of its slot.
WITH t AS (SELECT ?::timestamptz AS t)
INSERT INTO {{schema}}.rate_limit_windows AS w (scope, name, bucket, period_ms, at, n)
SELECT u.scope, u.name, u.bucket, u.period_ms, ARRAY[t.t], ARRAY[u.n]
  FROM t, unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::int[]) AS u(scope, name, bucket, period_ms, n)
ON CONFLICT (scope, name, bucket) DO UPDATE
   SET period_ms = EXCLUDED.period_ms,
       (at, n) = (SELECT array_agg(s.at ORDER BY s.at), array_agg(s.n ORDER BY s.at)
                    FROM (SELECT max(e.at) AS at, sum(e.n)::int AS n
                            FROM (SELECT x.at, x.n FROM unnest(w.at, w.n) AS x(at, n)
                                   WHERE x.at > EXCLUDED.at[1] - EXCLUDED.period_ms * interval '1 millisecond'
                                  UNION ALL
                                  SELECT EXCLUDED.at[1], EXCLUDED.n[1]) e
                           GROUP BY floor(extract(epoch FROM e.at) * 64000 / EXCLUDED.period_ms)) s)

-- name: rateLimitKnownKind
-- Whether a kind exists for an operator: it has a limit, a live worker serves it, or a job of it is
-- live, finished or dead. Read through for an unknown name, as queueKnown: an operator's command only.
SELECT EXISTS (SELECT 1 FROM {{schema}}.rate_limits WHERE scope = 'kind' AND name = ?)
    OR EXISTS (SELECT 1 FROM {{schema}}.workers WHERE kinds -> ? IS NOT NULL)
    OR EXISTS (SELECT 1 FROM {{schema}}.jobs WHERE kind = ?)
    OR EXISTS (SELECT 1 FROM {{schema}}.dead_jobs WHERE kind = ?)
    OR EXISTS (SELECT 1 FROM {{schema}}.job_history WHERE kind = ?) AS known
