-- The jobs table: live jobs only (scheduled, ready, running; waiting behind the head of their sequence, for
-- their dependencies or for a signal).
-- Blocks: "-- name: x" is a statement, "-- fragment: x" is text that statements include as {{x}}.

-- fragment: jobColumns
id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts,
tenant, unique_key, metadata, errors, created_at, attempted_at, sequence_key, sequence_halt, output,
progress, logs

-- fragment: jobFence
-- Fenced: a row matches only while this worker still holds this attempt's claim. Fenced
-- statements return the (id, attempt) fences that matched.
j.id = f.id AND j.attempt = f.attempt AND j.locked_by = ? AND j.state = 'running'

-- fragment: jobInsertState
-- A job is ready when its run-at has come, else scheduled (r.run_at: the statement's run-at).
CASE WHEN r.run_at <= now() THEN 'ready' ELSE 'scheduled' END

-- fragment: jobInsertRunAtParams
-- The run-at of statements that take it as two parameters: epoch microseconds, or else a delay in
-- milliseconds after the database's now() (both null: now).
(SELECT coalesce(timestamptz 'epoch' + ?::bigint * interval '1 microsecond',
                 now() + coalesce(?::bigint, 0) * interval '1 millisecond') AS run_at) r

-- fragment: jobInsertRows
-- Rows go in in the arrays' order (ids reserved, or drawn from the sequence, in that order): the
-- sequence trigger makes the first job of a key its head, so a bulk enqueue keeps enqueue order within
-- each key; rows without reserved ids get theirs in the arrays' order.
INSERT INTO {{schema}}.jobs AS j
       (id, queue, kind, payload, payload_version, priority, state, run_at, max_attempts,
        tenant, unique_key, metadata, sequence_key, sequence_halt)
SELECT coalesce(u.id, nextval('{{schema}}.jobs_id_seq')), u.queue, u.kind, u.payload::jsonb, u.payload_version, u.priority,
       {{jobInsertState}},
       r.run_at, u.max_attempts, u.tenant, u.unique_key, u.metadata::jsonb, u.sequence_key, u.sequence_halt
  FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::int[], ?::smallint[],
              ?::bigint[], ?::bigint[], ?::int[], ?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[])
       AS u(id, queue, kind, payload, payload_version, priority,
            run_at_micros, delay_ms, max_attempts, tenant, unique_key, metadata, sequence_key, sequence_halt)
 CROSS JOIN LATERAL (
       SELECT coalesce(timestamptz 'epoch' + u.run_at_micros * interval '1 microsecond',
                       now() + coalesce(u.delay_ms, 0) * interval '1 millisecond') AS run_at) r

-- name: jobInsertUniform
-- A bulk enqueue whose jobs differ only in their payloads (enqueueAll of one kind with the same
-- options): the shared values as parameters and one array of payloads. Unnesting the general form's
-- fourteen arrays cost 2.2 ms more per 1,000 rows (9.5-10.7 ms against 7.2-8.1 with the commit). Ids
-- come from the sequence in the array's order.
INSERT INTO {{schema}}.jobs AS j
       (queue, kind, payload, payload_version, priority, state, run_at, max_attempts, tenant, metadata,
        sequence_halt)
SELECT ?, ?, u.payload::jsonb, ?, ?, {{jobInsertState}},
       r.run_at, ?, ?, ?::jsonb, ?
  FROM {{jobInsertRunAtParams}}
 CROSS JOIN unnest(?::text[]) AS u(payload)
{{jobInsertReturning}}

-- fragment: jobInsertOneRow
-- One job, with plain parameters: the common single enqueue skips the array encoding and the
-- unnest of the bulk statement.
INSERT INTO {{schema}}.jobs AS j
       (queue, kind, payload, payload_version, priority, state, run_at, max_attempts, tenant, unique_key,
        metadata, sequence_key, sequence_halt)
SELECT ?, ?, ?::jsonb, ?, ?, {{jobInsertState}},
       r.run_at, ?, ?, ?, ?::jsonb, ?, ?
  FROM {{jobInsertRunAtParams}}

-- fragment: jobInsertOnConflict
-- Rows with a unique key are inserted with ON CONFLICT, which makes every row a speculative
-- insertion (an extra index probe and WAL record per row): a quarter of a 1,000-row insert (8.1 ms
-- against 6.2). Batches without keys skip it; a NULL key never conflicts, so the result is the same.
ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING

-- fragment: jobInsertReturning
RETURNING j.id, j.state = 'ready' AS ready

-- name: jobInsertMany
{{jobInsertRows}}
{{jobInsertReturning}}

-- name: jobInsertManyKeyed
{{jobInsertRows}}
{{jobInsertOnConflict}}
{{jobInsertReturning}}

-- name: jobInsertOne
{{jobInsertOneRow}}
{{jobInsertReturning}}

-- name: jobInsertOneKeyed
{{jobInsertOneRow}}
{{jobInsertOnConflict}}
{{jobInsertReturning}}

-- name: jobInsertDebounced
-- A debounced enqueue (JobOptions.Builder.debounce): one statement, so that enqueues of one key from many
-- transactions at once collapse into one job. The first inserts the job, scheduled a window from now, with
-- its deadline (now plus the maximum wait); the unique index's speculative insertion makes each later one
-- wait for the holder's commit and then update it instead: the last payload (and payload version) wins, the
-- metadata is merged (the last enqueue's tags over the job's, its edits and notes kept), and the run time
-- moves to a window from now, never past the deadline. A job that was claimed meanwhile has left the index
-- (attempted_at), so the insertion goes ahead and makes the next job. The enqueue count is kept in the
-- metadata (docket.debounce) for explain.
INSERT INTO {{schema}}.jobs AS j
       (queue, kind, payload, payload_version, priority, state, run_at, max_attempts, tenant, metadata,
        debounce_key, debounce_deadline)
SELECT ?, ?, ?::jsonb, ?, ?, 'scheduled', now() + d.wait, ?, ?,
       ?::jsonb || jsonb_build_object('docket.debounce', jsonb_build_object('key', d.key, 'enqueues', 1)),
       d.key, now() + d.max_wait
  FROM (SELECT ?::text AS key, ?::bigint * interval '1 millisecond' AS wait,
               ?::bigint * interval '1 millisecond' AS max_wait) d
    ON CONFLICT (kind, debounce_key) WHERE debounce_key IS NOT NULL AND attempted_at IS NULL
    DO UPDATE SET payload = excluded.payload, payload_version = excluded.payload_version,
       metadata = j.metadata || (excluded.metadata - 'docket.debounce') || jsonb_build_object('docket.debounce',
           jsonb_build_object('key', j.debounce_key,
                              'enqueues', coalesce((j.metadata -> 'docket.debounce' ->> 'enqueues')::bigint, 1) + 1)),
       run_at = least(excluded.run_at, j.debounce_deadline),
       state = CASE WHEN least(excluded.run_at, j.debounce_deadline) <= now() THEN 'ready' ELSE 'scheduled' END
RETURNING j.id, j.xmax = 0 AS inserted, j.state = 'ready' AS ready

-- name: jobReserveIds
-- Reserves ids for a bulk insert so that each input row is matched to its id by value, not by row order.
SELECT nextval('{{schema}}.jobs_id_seq') AS id FROM generate_series(1, ?)

-- name: jobFindByUniqueKeys
SELECT unique_key, id FROM {{schema}}.jobs WHERE unique_key = ANY (?::text[])

-- fragment: jobClaimLease
-- Kinds with a lease of their own pass it in the arrays; the others take the worker's.
lease_until = now() + coalesce(
           (SELECT l.ms FROM unnest(?::text[], ?::bigint[]) AS l(kind, ms) WHERE l.kind = jobs.kind),
           ?) * interval '1 millisecond',
       locked_by = ?

-- fragment: jobClaimSet
-- What a claim sets: the attempt counts at claim, and the lease.
UPDATE {{schema}}.jobs
   SET state = 'running', attempt = attempt + 1, attempted_at = now(),
       {{jobClaimLease}}

-- fragment: jobClaimAsyncCommit
-- A claim's transaction commits with synchronous_commit off: one claim statement per batch is the
-- producer's whole loop, and waiting for the WAL flush was most of its time. Nothing acknowledged
-- to a user depends on a claim being durable. A database crash can lose only the last few hundred
-- milliseconds of claims; those jobs come back ready with their earlier attempt, so the handlers
-- that ran them are fenced out (an outcome is written only for the claimed attempt) and the jobs
-- run again: the at-least-once guarantee, as after any crash. A written outcome commits durably, and
-- the WAL is flushed in order, so a durable outcome implies its durable claim. The setting is made
-- inside the claim statement (an uncorrelated sub-select, evaluated once) to save a round trip;
-- it is local to the transaction and read when the transaction commits.
(SELECT set_config('synchronous_commit', 'off', true)) = 'off'

-- fragment: jobClaimReturning
RETURNING id, queue, kind, payload::text, payload_version, priority, run_at, attempt, max_attempts,
          tenant, metadata::text, lease_until, sequence_key

-- name: jobClaim
-- The locking sub-select is an ARRAY(...) argument, which PostgreSQL evaluates exactly once per
-- statement (an InitPlan). The common `WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)`
-- form lets the planner turn the sub-select into a join it may re-run, which was measured on
-- PostgreSQL 18 to stall for minutes while locking dozens of rows for LIMIT 1.
-- The inner scan is the partial claim index in its own order, so stale statistics after a bulk
-- insert cannot turn it into a sequential scan and sort. The claim counts the attempt, so a job
-- that kills its worker still reaches its max attempts. Kinds with a lease of their own pass it
-- in the two arrays; the others take the worker's lease. The claim commits without waiting for
-- its WAL flush (see jobClaimAsyncCommit).
{{jobClaimSet}}
 WHERE id = ANY (ARRAY(
           SELECT id FROM {{schema}}.jobs
            WHERE state = 'ready' AND queue = ?
              AND NOT EXISTS (SELECT 1 FROM {{schema}}.queues q WHERE q.name = ? AND q.paused)
            ORDER BY priority, run_at, id
            LIMIT ?
            FOR NO KEY UPDATE SKIP LOCKED))
   AND {{jobClaimAsyncCommit}}
{{jobClaimReturning}}

-- name: jobClaimCapped
-- The claim of a queue with concurrency caps (cluster-wide, and per tenant). Claimers of such a
-- queue serialize on an advisory lock held by the caller's transaction (queueClaimLock), so the
-- running counts they read stay true until they commit. FOR UPDATE cannot share a query level with
-- the per-tenant selection, so the selection is done first without locks and the chosen rows are
-- locked (SKIP LOCKED) one level up. Tenants are enumerated with a loose index scan (one index
-- probe per tenant) and each contributes at most its cap minus its running jobs, in claim order;
-- so a tenant with 500,000 ready jobs costs the claim no more than one with five. Jobs without a
-- tenant come from a bounded look-ahead of the first 1,000 ready jobs in claim order.
WITH RECURSIVE p AS (
    SELECT ?::text AS queue, ?::int AS lim, ?::int AS tenant_cap, ?::int AS max_running
), tenants AS (
    (SELECT tenant FROM {{schema}}.jobs
      WHERE state = 'ready' AND tenant IS NOT NULL AND queue = (SELECT queue FROM p)
      ORDER BY tenant LIMIT 1)
    UNION ALL
    SELECT (SELECT j.tenant FROM {{schema}}.jobs j
             WHERE j.state = 'ready' AND j.tenant IS NOT NULL AND j.queue = (SELECT queue FROM p)
               AND j.tenant > t.tenant
             ORDER BY j.tenant LIMIT 1)
      FROM tenants t
     WHERE t.tenant IS NOT NULL
), running AS (
    SELECT tenant, count(*) AS n FROM {{schema}}.jobs
     WHERE state = 'running' AND queue = (SELECT queue FROM p)
     GROUP BY tenant
), candidates AS (
    SELECT c.id, c.priority, c.run_at
      FROM tenants t
     CROSS JOIN LATERAL (
           SELECT j.id, j.priority, j.run_at FROM {{schema}}.jobs j
            WHERE j.state = 'ready' AND j.tenant IS NOT NULL AND j.queue = (SELECT queue FROM p)
              AND j.tenant = t.tenant
            ORDER BY j.priority, j.run_at, j.id
            LIMIT greatest(0, least((SELECT lim FROM p), coalesce((SELECT tenant_cap FROM p), (SELECT lim FROM p))
                           - coalesce((SELECT r.n FROM running r WHERE r.tenant = t.tenant), 0)))) c
     WHERE t.tenant IS NOT NULL
    UNION ALL
    SELECT ahead.id, ahead.priority, ahead.run_at
      FROM (SELECT id, priority, run_at, tenant FROM {{schema}}.jobs
             WHERE state = 'ready' AND queue = (SELECT queue FROM p)
             ORDER BY priority, run_at, id
             LIMIT 1000) ahead
     WHERE ahead.tenant IS NULL
)
{{jobClaimSet}}
 WHERE id = ANY (ARRAY(
           SELECT j.id FROM {{schema}}.jobs j
            WHERE j.id = ANY (ARRAY(
                      SELECT id FROM candidates
                       ORDER BY priority, run_at, id
                       LIMIT greatest(0, least((SELECT lim FROM p), coalesce((SELECT max_running FROM p)
                           - (SELECT coalesce(sum(n), 0) FROM running), (SELECT lim FROM p))))))
              AND j.state = 'ready'
              AND NOT EXISTS (SELECT 1 FROM {{schema}}.queues q WHERE q.name = (SELECT queue FROM p) AND q.paused)
            ORDER BY j.priority, j.run_at, j.id
            FOR NO KEY UPDATE SKIP LOCKED))
   AND {{jobClaimAsyncCommit}}
{{jobClaimReturning}}

-- name: jobClaimRateLimited
-- The claim of a queue that rate limits concern (RateLimitQueries.claim, after the limits' rows are
-- locked and their usage read; the limits are the queue's own and its worker's kinds', and for a capped
-- queue its caps as budgets of scope 'cap' (the claim then holds queueClaimLock): l). A bucket with
-- no permit left (b.remaining <= 0) is left out of the scan itself, so the kinds and tenants behind
-- its jobs keep flowing; its ready jobs cost the claim only the index entries it reads past. Within
-- the bounded look-ahead, each row is numbered within every (limit, bucket) it counts towards, and a
-- row past any of its budgets is not taken (a row refused by one limit still uses a number of the
-- others: the claim may take fewer than it could, never more). Its start time (attempted_at) is the
-- one the windows record (see rateLimitUsage), not the transaction's now().
WITH l AS (
    SELECT * FROM unnest(?::text[], ?::text[], ?::boolean[], ?::int[]) AS l(scope, name, per_tenant, permits)
), b AS (
    SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::int[]) AS b(scope, name, bucket, remaining)
), scan AS (
    SELECT j.id, j.kind, j.tenant, j.priority, j.run_at FROM {{schema}}.jobs j
     WHERE j.state = 'ready' AND j.queue = ?
       AND NOT EXISTS (SELECT 1 FROM {{schema}}.queues q WHERE q.name = j.queue AND q.paused)
       AND NOT EXISTS (SELECT 1 FROM l JOIN b ON b.scope = l.scope AND b.name = l.name
                        WHERE b.remaining <= 0 AND (l.scope <> 'kind' OR l.name = j.kind)
                          AND b.bucket = CASE WHEN l.per_tenant AND j.tenant IS NOT NULL
                                              THEN '=' || j.tenant ELSE '' END)
     ORDER BY j.priority, j.run_at, j.id
     LIMIT ?
), numbered AS MATERIALIZED (
    SELECT s.id, coalesce(b.remaining, l.permits) AS budget,
           row_number() OVER (PARTITION BY l.scope, l.name, k.bucket ORDER BY s.priority, s.run_at, s.id) AS nth
      FROM scan s
      JOIN l ON l.scope <> 'kind' OR l.name = s.kind
     CROSS JOIN LATERAL (SELECT CASE WHEN l.per_tenant AND s.tenant IS NOT NULL
                                     THEN '=' || s.tenant ELSE '' END AS bucket) k
      LEFT JOIN b ON b.scope = l.scope AND b.name = l.name AND b.bucket = k.bucket
)
UPDATE {{schema}}.jobs
   SET state = 'running', attempt = attempt + 1, attempted_at = ?::timestamptz,
       {{jobClaimLease}}
 WHERE id = ANY (ARRAY(
           SELECT j.id FROM {{schema}}.jobs j
            WHERE j.id = ANY (ARRAY(
                      SELECT s.id FROM scan s
                       WHERE NOT EXISTS (SELECT 1 FROM numbered n WHERE n.id = s.id AND n.nth > n.budget)
                       ORDER BY s.priority, s.run_at, s.id
                       LIMIT ?))
              AND j.state = 'ready'
            ORDER BY j.priority, j.run_at, j.id
            FOR NO KEY UPDATE SKIP LOCKED))
   AND {{jobClaimAsyncCommit}}
{{jobClaimReturning}}

-- name: jobRateLimitWaiting
-- Whether a ready job of the queue counts towards one of the given buckets (those out of permits). Run
-- only after a rate-limited claim came back short, so the jobs it reads past (the others of the
-- queue) are fewer than that claim asked for.
SELECT EXISTS (
    SELECT 1 FROM {{schema}}.jobs j
     WHERE j.state = 'ready' AND j.queue = ?
       AND EXISTS (SELECT 1 FROM unnest(?::text[], ?::text[], ?::boolean[], ?::text[]) AS b(scope, name, per_tenant, bucket)
                    WHERE (b.scope <> 'kind' OR b.name = j.kind)
                      AND b.bucket = CASE WHEN b.per_tenant AND j.tenant IS NOT NULL THEN '=' || j.tenant ELSE '' END)
) AS waiting

-- name: jobRunningInQueue
-- A capped queue's running jobs per tenant (from the running set), for its rate-limited claim.
SELECT tenant, count(*) AS running FROM {{schema}}.jobs WHERE state = 'running' AND queue = ? GROUP BY tenant

-- name: jobCompleteManyToHistory
-- Outcome statements count what they wrote in the cluster's counters in the same statement (one
-- appended row per queue and kind; migration V014 says why), so the one-statement batch stays one.
WITH done AS (
    DELETE FROM {{schema}}.jobs j
     USING unnest(?::bigint[], ?::int[]) AS f(id, attempt)
     WHERE {{jobFence}}
    RETURNING j.*
), moved AS (
    INSERT INTO {{schema}}.job_history ({{jobColumns}}, state)
    SELECT {{jobColumns}}, 'completed' FROM done
), counted AS (
    INSERT INTO {{schema}}.job_count_deltas (queue, kind, completed)
    SELECT queue, kind, count(*) FROM done GROUP BY queue, kind
)
SELECT id, attempt FROM done

-- name: jobCompleteManyDiscard
WITH done AS (
    DELETE FROM {{schema}}.jobs j
     USING unnest(?::bigint[], ?::int[]) AS f(id, attempt)
     WHERE {{jobFence}}
    RETURNING j.id, j.attempt, j.queue, j.kind
), counted AS (
    INSERT INTO {{schema}}.job_count_deltas (queue, kind, completed)
    SELECT queue, kind, count(*) FROM done GROUP BY queue, kind
)
SELECT id, attempt FROM done

-- name: jobRetryMany
-- Retries go to 'scheduled': only due jobs are 'ready', which keeps the claim free of a run_at filter.
-- A failed attempt's recorded output goes with it: a job's output is its completing attempt's.
WITH retried AS (
    UPDATE {{schema}}.jobs j
       SET state = 'scheduled',
           run_at = now() + f.delay_ms * interval '1 millisecond',
           lease_until = NULL, locked_by = NULL, output = NULL,
           errors = j.errors || jsonb_build_array(jsonb_build_object(
               'attempt', j.attempt, 'at', now(), 'error', f.error, 'worker', j.locked_by))
      FROM unnest(?::bigint[], ?::int[], ?::bigint[], ?::text[]) AS f(id, attempt, delay_ms, error)
     WHERE {{jobFence}}
    RETURNING j.id, j.attempt, j.queue, j.kind
), counted AS (
    INSERT INTO {{schema}}.job_count_deltas (queue, kind, failed)
    SELECT queue, kind, count(*) FROM retried GROUP BY queue, kind
)
SELECT id, attempt FROM retried

-- name: jobSnoozeMany
-- A job snoozed for no time is ready at once: its queue is notified, or workers that found it drained
-- would leave it for their poll (the leader's promotion notifies for the others).
WITH snoozed AS (
    UPDATE {{schema}}.jobs j
       SET state = CASE WHEN f.delay_ms <= 0 THEN 'ready' ELSE 'scheduled' END,
           run_at = now() + f.delay_ms * interval '1 millisecond',
           attempt = j.attempt - 1, lease_until = NULL, locked_by = NULL
      FROM unnest(?::bigint[], ?::int[], ?::bigint[]) AS f(id, attempt, delay_ms)
     WHERE {{jobFence}}
    RETURNING j.id, f.attempt, j.queue, j.state
)
SELECT s.id, s.attempt FROM snoozed s
 CROSS JOIN (SELECT count(pg_notify('{{channel}}', queue))
               FROM (SELECT DISTINCT queue FROM snoozed WHERE state = 'ready') q) notified

-- name: jobAwaitSignalMany
-- Handlers that asked to wait for a signal (JobContext.awaitSignal): fenced, the attempt given back; a job
-- whose signal is kept already is ready again at once. The protocol against concurrent senders is in the
-- function (migration V015).
SELECT id, attempt FROM {{schema}}.await_signals(?::bigint[], ?::int[], ?::text[], ?::bigint[], ?::text[], ?)

-- name: jobAwaitSignalAtEnqueue
-- Jobs just inserted (in the enqueue's transaction) that wait for a signal before they may run. A job that
-- its dependencies cancelled at once is gone already and matches nothing.
UPDATE {{schema}}.jobs j
   SET state = 'waiting', await_signal = w.name, await_since = now(),
       await_deadline = now() + w.timeout_ms * interval '1 millisecond', await_on_timeout = w.on_timeout
  FROM unnest(?::bigint[], ?::text[], ?::bigint[], ?::text[]) AS w(id, name, timeout_ms, on_timeout)
 WHERE j.id = w.id

-- name: jobAwaitExpired
-- A page of waits whose deadline passed, for the maintenance leader; locked, so that a signal that
-- arrives meanwhile waits for this transaction (and then finds the wait over and is kept).
SELECT id, await_on_timeout FROM {{schema}}.jobs
 WHERE await_deadline <= now() AND state = 'waiting'
 ORDER BY await_deadline
 LIMIT ?
 FOR NO KEY UPDATE SKIP LOCKED

-- name: jobAwaitTimeoutRun
-- Waits that time out with 'run': the job runs without its signal (or still waits for its dependencies),
-- the timeout noted in its metadata.
WITH t AS (
    UPDATE {{schema}}.jobs j
       SET state = CASE WHEN j.waiting_for > 0 THEN 'waiting' WHEN j.run_at <= now() THEN 'ready' ELSE 'scheduled' END,
           run_at = CASE WHEN j.waiting_for > 0 THEN j.run_at ELSE greatest(j.run_at, now()) END,
           metadata = {{schema}}.signal_note(j.metadata, jsonb_build_object('name', j.await_signal, 'at', now(),
               'timedOut', true)),
           await_signal = NULL, await_since = NULL, await_deadline = NULL, await_on_timeout = NULL
     WHERE j.id = ANY (?::bigint[]) AND j.state = 'waiting' AND j.await_on_timeout = 'run' AND j.await_deadline <= now()
    RETURNING j.queue, j.state
)
SELECT count(*) AS moved FROM t
 CROSS JOIN (SELECT count(pg_notify('{{channel}}', q.queue))
               FROM (SELECT DISTINCT queue FROM t WHERE state = 'ready') q) notified

-- name: jobAwaitTimeoutCancel
WITH gone AS (
    DELETE FROM {{schema}}.jobs
     WHERE id = ANY (?::bigint[]) AND state = 'waiting' AND await_on_timeout = 'cancel' AND await_deadline <= now()
    RETURNING *
), moved AS (
    INSERT INTO {{schema}}.job_history ({{jobColumns}}, state)
    SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts, tenant, unique_key,
           metadata || jsonb_build_object('docket.cancelReason', 'signal ''' || await_signal || ''' did not arrive by '
               || to_char(await_deadline AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')),
           errors, created_at, attempted_at, sequence_key, sequence_halt, output, progress, logs, 'cancelled'
      FROM gone
)
SELECT count(*) AS moved FROM gone

-- name: jobNotesWrite
-- A handler's progress and new log lines (JobContext.progress, log), fenced like its output: an attempt that
-- lost its lease writes nothing. Neither column is in an index: a HOT update. Either may be null (unchanged).
UPDATE {{schema}}.jobs j
   SET progress = coalesce(?::jsonb || jsonb_build_object('attempt', j.attempt, 'at', now()), j.progress),
       logs = CASE WHEN ?::jsonb IS NULL THEN j.logs
                   ELSE {{schema}}.job_log_append(j.logs, j.attempt, ?::jsonb, ?, ?) END
 WHERE j.id = ? AND j.attempt = ? AND j.locked_by = ? AND j.state = 'running'

-- name: jobReleaseMany
-- A released job was interrupted by a shutdown, not failed: its attempt is given back if it stopped.
-- Its queue is notified, so that other workers, which may have found the queue drained, take it at
-- once rather than at their next poll.
WITH released AS (
    UPDATE {{schema}}.jobs j
       SET state = 'ready', attempt = j.attempt - f.give_back, lease_until = NULL, locked_by = NULL
      FROM unnest(?::bigint[], ?::int[], ?::int[]) AS f(id, attempt, give_back)
     WHERE {{jobFence}}
    RETURNING j.id, f.attempt, j.queue
)
SELECT r.id, r.attempt FROM released r
 CROSS JOIN (SELECT count(pg_notify('{{channel}}', queue)) FROM (SELECT DISTINCT queue FROM released) q) notified

-- fragment: jobHeartbeatUpdate
-- Touches only lease_until, which is in no index and no index predicate: a HOT update. Rows that
-- another transaction holds are skipped, never waited for: the worker's own completer may be
-- writing them (in another order, which would deadlock), and a rescue or cancel means they are
-- lost anyway. A skipped job counts as not extended, which only matters while its handler runs.
UPDATE {{schema}}.jobs j
   SET lease_until = now() + f.lease_ms * interval '1 millisecond'
  FROM unnest(?::bigint[], ?::int[], ?::bigint[]) AS f(id, attempt, lease_ms)
 WHERE {{jobFence}}
   AND j.id = ANY (ARRAY(SELECT id FROM {{schema}}.jobs WHERE id = ANY (?::bigint[])
                         FOR NO KEY UPDATE SKIP LOCKED))

-- name: jobHeartbeatMany
{{jobHeartbeatUpdate}}
RETURNING j.id, j.attempt

-- name: jobHeartbeatManyAsyncCommit
-- For a worker whose writes commit asynchronously (Worker.Builder.asyncCommit): a lease extension
-- lost in a crash only shortens that lease.
{{jobHeartbeatUpdate}}
   AND {{jobClaimAsyncCommit}}
RETURNING j.id, j.attempt

-- name: jobPromoteDue
WITH promoted AS (
    UPDATE {{schema}}.jobs
       SET state = 'ready'
     WHERE id = ANY (ARRAY(
               SELECT id FROM {{schema}}.jobs
                WHERE state = 'scheduled' AND run_at <= now()
                ORDER BY run_at
                LIMIT ?
                FOR NO KEY UPDATE SKIP LOCKED))
    RETURNING queue
)
SELECT queue, count(*) AS promoted, pg_notify('{{channel}}', queue) FROM promoted GROUP BY queue

-- name: jobExpiredLeases
-- Rescue works in pages by id, so a page of rows it cannot take (locked) never stalls it.
SELECT id FROM {{schema}}.jobs
 WHERE state = 'running' AND lease_until < now() AND id > ?
 ORDER BY id
 LIMIT ?
 FOR NO KEY UPDATE SKIP LOCKED

-- name: jobRescueExpired
-- A lost lease is a failed attempt, counted as one in the cluster's counters.
WITH rescued AS (
    UPDATE {{schema}}.jobs
       SET state = 'ready', lease_until = NULL, locked_by = NULL, output = NULL,
           errors = errors || jsonb_build_array(jsonb_build_object(
               'attempt', attempt, 'at', now(), 'worker', locked_by,
               'error', 'lease expired: worker ' || coalesce(locked_by, '?') || ' lost its lease'))
     WHERE id = ANY (?::bigint[]) AND state = 'running' AND lease_until < now()
    RETURNING queue, kind
), counted AS (
    INSERT INTO {{schema}}.job_count_deltas (queue, kind, failed)
    SELECT queue, kind, count(*) FROM rescued GROUP BY queue, kind
)
SELECT queue, kind FROM rescued

-- name: jobDeadRows
-- Dead row versions in the hot table, as the statistics system last saw them (at most about a second old).
SELECT pg_stat_get_dead_tuples('{{schema}}.jobs'::regclass) AS dead_rows

-- name: jobVacuum
-- SKIP_LOCKED: an autovacuum (or DDL) already holding the table makes this a no-op instead of a wait.
-- TRUNCATE false: the table's own setting since V013 (why: there), stated here too so that the
-- maintainer never queues for the table's exclusive lock even where that setting was lost.
-- PARALLEL 0: the indexes of a table kept this small take milliseconds to vacuum; launching
-- parallel workers for them took longer than the work (sampled: DSM allocation, worker start and
-- shutdown in 13 of the maintainer's vacuum's samples, the workers' own work in 3).
VACUUM (SKIP_LOCKED, TRUNCATE false, PARALLEL 0) {{schema}}.jobs

-- name: jobCountLiveInQueue
-- A queue being moved to another database is drained when this is 0: every job that has not finished
-- (scheduled, ready, running, or waiting on a dependency, sequence or signal) is in the jobs table.
SELECT count(*) AS live FROM {{schema}}.jobs WHERE queue = ?

-- name: jobCountLiveByQueueAndKind
-- For the doctor's checks across databases: which queues and kinds have unfinished jobs here.
SELECT queue, kind, count(*) AS live FROM {{schema}}.jobs GROUP BY queue, kind ORDER BY queue, kind

-- name: jobFind
-- One snapshot for all three tables: a job moving between them is seen exactly once.
SELECT {{jobColumns}},
       state, NULL::timestamptz AS finished_at, lease_until, locked_by, NULL AS reason,
       await_signal, await_since, await_deadline, await_on_timeout
  FROM {{schema}}.jobs WHERE id = ?
UNION ALL
SELECT {{jobColumns}},
       state, finished_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL
  FROM {{schema}}.job_history WHERE id = ?
UNION ALL
SELECT {{jobColumns}},
       'dead', died_at, NULL, NULL, reason, NULL, NULL, NULL, NULL
  FROM {{schema}}.dead_jobs WHERE id = ?
LIMIT 1

-- name: jobCancel
-- Cancelling moves a waiting or running job to the history at once; a worker still running it
-- finds out at its next heartbeat (the fenced update matches nothing) and interrupts it.
WITH gone AS (
    DELETE FROM {{schema}}.jobs WHERE id = ? RETURNING *
), moved AS (
    INSERT INTO {{schema}}.job_history ({{jobColumns}}, state)
    SELECT {{jobColumns}}, 'cancelled' FROM gone
)
SELECT state, queue FROM gone

-- fragment: jobSummaryColumns
-- List views never select payloads: a page of huge payloads must not be read to show ids.
id, queue, kind, priority, attempt, max_attempts, run_at, created_at, attempted_at, tenant

-- name: jobList
-- One keyset page of jobs across the three tables, newest id first; each filter is optional
-- (NULL matches all). The state filter picks the table(s) before any row is read.
SELECT * FROM (
    SELECT {{jobSummaryColumns}}, state, NULL::timestamptz AS finished_at,
           jsonb_array_length(errors) AS error_count, NULL AS reason
      FROM {{schema}}.jobs
     WHERE (?::text IS NULL OR state = ?) AND (?::text IS NULL OR queue = ?) AND (?::text IS NULL OR kind = ?)
       AND id < ?
    UNION ALL
    SELECT {{jobSummaryColumns}}, state, finished_at, jsonb_array_length(errors), NULL
      FROM {{schema}}.job_history
     WHERE (?::text IS NULL OR state = ?) AND (?::text IS NULL OR queue = ?) AND (?::text IS NULL OR kind = ?)
       AND id < ?
    UNION ALL
    SELECT {{jobSummaryColumns}}, 'dead', died_at, jsonb_array_length(errors), reason
      FROM {{schema}}.dead_jobs
     WHERE (?::text IS NULL OR 'dead' = ?) AND (?::text IS NULL OR queue = ?) AND (?::text IS NULL OR kind = ?)
       AND id < ?
) j
ORDER BY id DESC
LIMIT ?

-- name: jobRunNow
WITH due AS (
    UPDATE {{schema}}.jobs SET state = 'ready', run_at = now()
     WHERE id = ? AND state = 'scheduled'
    RETURNING queue
)
SELECT pg_notify('{{channel}}', queue) FROM due

-- name: jobEdit
-- An operator's edit of a job that has not started (DocketAdmin.editJob): one conditional UPDATE, so that it
-- is applied whole or not at all. The condition is the job's state under its row lock: a claim that locked
-- the row first makes it 'running', and this statement, re-checking the new row version, matches nothing
-- (the edit is refused, the job keeps its values); an edit that locked it first is skipped by the claim's
-- SKIP LOCKED until it commits, and the job then runs with the edited values. A waiting job (for a signal,
-- its dependencies or its sequence) keeps what decides when it runs: only its payload and priority may
-- change. Run now moves the run time to now (never later: a ready job keeps its place). Each edit is noted in the metadata under "docket.edits" ({"at", "by", "changed"}; never the
-- payload), the last 20 kept. A job that became ready wakes its queue's workers at the commit.
WITH p AS (
    SELECT ?::bigint AS id, ?::jsonb AS payload, ?::smallint AS priority, ?::text AS queue, ?::boolean AS run_now,
           timestamptz 'epoch' + ?::bigint * interval '1 microsecond' AS run_at,
           jsonb_build_object('at', now(), 'by', ?::text, 'changed', ?::jsonb) AS note
), e AS (
    UPDATE {{schema}}.jobs j
       SET payload = coalesce(p.payload, j.payload),
           priority = coalesce(p.priority, j.priority),
           queue = coalesce(p.queue, j.queue),
           run_at = CASE WHEN p.run_now THEN least(j.run_at, now()) ELSE coalesce(p.run_at, j.run_at) END,
           state = CASE WHEN j.state = 'waiting' THEN 'waiting'
                        WHEN p.run_now OR coalesce(p.run_at, j.run_at) <= now() THEN 'ready'
                        ELSE 'scheduled' END,
           metadata = j.metadata || jsonb_build_object('docket.edits',
               CASE WHEN jsonb_array_length(coalesce(j.metadata -> 'docket.edits', '[]')) >= 20
                    THEN (j.metadata -> 'docket.edits') - 0
                    ELSE coalesce(j.metadata -> 'docket.edits', '[]') END
               || jsonb_build_array(p.note))
      FROM p
     WHERE j.id = p.id
       AND (j.state IN ('scheduled', 'ready')
            OR (j.state = 'waiting' AND NOT p.run_now AND p.run_at IS NULL AND p.queue IS NULL))
    RETURNING j.state, j.queue
)
SELECT e.state, e.queue FROM e
  LEFT JOIN LATERAL (SELECT pg_notify('{{channel}}', e.queue) WHERE e.state = 'ready') n ON true

-- name: jobMakeDue
-- For tests that run jobs on their own thread (Worker.Builder.runJobsDueWithin): the scheduled jobs
-- of some queues that fall due within a horizon become ready now, as if that time had passed.
UPDATE {{schema}}.jobs SET state = 'ready', run_at = now()
 WHERE state = 'scheduled' AND queue = ANY (?) AND run_at <= now() + ? * interval '1 millisecond'

-- name: jobAwaitNewerVersion
-- Puts back a job whose payload version is newer than the worker's handler reads: like a snooze
-- (the attempt is given back), fenced, noting in its metadata why it waits and since when, as
-- ISO-8601 UTC text that Instant.parse reads. The wait goes on while the job comes back at the time
-- this statement set (docket.waitingNext); a job that reaches a worker any other way (replayed,
-- retried, run now) starts a new wait.
WITH w AS (SELECT now() + ? * interval '1 millisecond' AS next)
UPDATE {{schema}}.jobs j
   SET state = 'scheduled', run_at = w.next, attempt = j.attempt - 1, lease_until = NULL,
       locked_by = NULL,
       metadata = j.metadata || jsonb_build_object(
           'docket.waiting', ?::text,
           'docket.waitingSince',
               CASE WHEN j.metadata ->> 'docket.waitingNext'
                         = to_char(j.run_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
                    THEN j.metadata ->> 'docket.waitingSince'
                    ELSE to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') END,
           'docket.waitingNext', to_char(w.next AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'))
  FROM w
 WHERE j.id = ? AND j.attempt = ? AND j.locked_by = ? AND j.state = 'running'

-- name: jobOutcomesAsyncCommit
-- Makes the current transaction commit without waiting for its WAL flush (Worker.Builder.asyncCommit):
-- a database crash may lose the outcomes it wrote, whose jobs then run again; never used for enqueues.
SELECT set_config('synchronous_commit', 'off', true)
