package dev.docket.internal.db;

/**
 * Every SQL statement Docket runs, named by table then verb. Parameters are always bound;
 * the only text substituted is the validated schema name ({@code {{schema}}}) and its
 * notification channel ({@code {{channel}}}), once, by {@link #forSchema(SchemaName)}.
 */
public final class Sql {

    private static final String JOB_COLUMNS = """
            id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts,
            tenant, unique_key, metadata, errors, created_at, attempted_at""";

    private static final String JOB_INSERT_SELECT = """
            INSERT INTO {{schema}}.jobs AS j
                   (id, queue, kind, payload, payload_version, priority, state, run_at, max_attempts,
                    tenant, unique_key, metadata)
            SELECT coalesce(u.id, nextval('{{schema}}.jobs_id_seq')), u.queue, u.kind, u.payload::jsonb, u.payload_version, u.priority,
                   CASE WHEN r.run_at <= now() THEN 'ready' ELSE 'scheduled' END,
                   r.run_at, u.max_attempts, u.tenant, u.unique_key, u.metadata::jsonb
              FROM unnest(?::bigint[], ?::text[], ?::text[], ?::text[], ?::int[], ?::smallint[],
                          ?::bigint[], ?::bigint[], ?::int[], ?::text[], ?::text[], ?::text[])
                   AS u(id, queue, kind, payload, payload_version, priority,
                        run_at_micros, delay_ms, max_attempts, tenant, unique_key, metadata)
             CROSS JOIN LATERAL (
                   SELECT coalesce(timestamptz 'epoch' + u.run_at_micros * interval '1 microsecond',
                                   now() + coalesce(u.delay_ms, 0) * interval '1 millisecond') AS run_at) r
            """;

    /*
     * One job, with plain parameters: the common single enqueue skips the array encoding and the
     * unnest of the bulk statement.
     */
    private static final String JOB_INSERT_ONE = """
            INSERT INTO {{schema}}.jobs AS j
                   (queue, kind, payload, payload_version, priority, state, run_at, max_attempts, tenant, unique_key,
                    metadata)
            SELECT ?, ?, ?::jsonb, ?, ?, CASE WHEN r.run_at <= now() THEN 'ready' ELSE 'scheduled' END,
                   r.run_at, ?, ?, ?, ?::jsonb
              FROM (SELECT coalesce(timestamptz 'epoch' + ?::bigint * interval '1 microsecond',
                                    now() + coalesce(?::bigint, 0) * interval '1 millisecond') AS run_at) r
            """;

    /*
     * Rows with a unique key are inserted with ON CONFLICT, which makes every row a speculative
     * insertion (an extra index probe and WAL record per row): a quarter of a 1,000-row insert (8.1 ms against 6.2).
     * Batches without keys skip it; a NULL key never conflicts, so the result is the same.
     */
    private static final String JOB_INSERT_KEYED = """
            ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING
            """;

    private static final String JOB_INSERT_RETURNING = """
            RETURNING j.id, j.state = 'ready'""";

    /** Reserves ids for a bulk insert so that each input row is matched to its id by value, not by row order. */
    private static final String JOB_RESERVE_IDS = """
            SELECT nextval('{{schema}}.jobs_id_seq') FROM generate_series(1, ?)""";

    private static final String JOB_FIND_BY_UNIQUE_KEYS = """
            SELECT unique_key, id FROM {{schema}}.jobs WHERE unique_key = ANY (?::text[])""";

    private static final String QUEUE_NOTIFY = """
            SELECT pg_notify('{{channel}}', q) FROM unnest(?::text[]) AS q""";

    /* What a claim sets: the attempt counts at claim, and kinds with a lease of their own pass it in the arrays. */
    private static final String CLAIM_SET = """
            UPDATE {{schema}}.jobs
               SET state = 'running', attempt = attempt + 1, attempted_at = now(),
                   lease_until = now() + coalesce(
                       (SELECT l.ms FROM unnest(?::text[], ?::bigint[]) AS l(kind, ms) WHERE l.kind = jobs.kind),
                       ?) * interval '1 millisecond',
                   locked_by = ?""";

    /*
     * A claim's transaction commits with synchronous_commit off: one claim statement per batch is the
     * producer's whole loop, and waiting for the WAL flush was most of its time. Nothing acknowledged
     * to a user depends on a claim being durable. A database crash can lose only the last few hundred
     * milliseconds of claims; those jobs come back ready with their earlier attempt, so the handlers
     * that ran them are fenced out (an outcome is written only for the claimed attempt) and the jobs
     * run again: the at-least-once guarantee, as after any crash. A written outcome commits durably, and
     * the WAL is flushed in order, so a durable outcome implies its durable claim. The setting is made
     * inside the claim statement (an uncorrelated sub-select, evaluated once) to save a round trip;
     * it is local to the transaction and read when the transaction commits.
     */
    private static final String CLAIM_ASYNC_COMMIT = """
            (SELECT set_config('synchronous_commit', 'off', true)) = 'off'
            """;

    private static final String CLAIM_RETURNING = """
            RETURNING id, queue, kind, payload::text, payload_version, priority, run_at, attempt, max_attempts,
                      tenant, metadata::text, lease_until""";

    /*
     * The locking sub-select is an ARRAY(...) argument, which PostgreSQL evaluates exactly once per
     * statement (an InitPlan). The common `WHERE id IN (SELECT ... LIMIT n FOR UPDATE SKIP LOCKED)`
     * form lets the planner turn the sub-select into a join it may re-run, which was measured on
     * PostgreSQL 18 to stall for minutes while locking dozens of rows for LIMIT 1.
     * The inner scan is the partial claim index in its own order, so stale statistics after a bulk
     * insert cannot turn it into a sequential scan and sort. The claim counts the attempt, so a job
     * that kills its worker still reaches its max attempts. Kinds with a lease of their own pass it
     * in the two arrays; the others take the worker's lease. The claim commits without waiting for
     * its WAL flush (see CLAIM_ASYNC_COMMIT).
     */
    private static final String JOB_CLAIM = CLAIM_SET + """

             WHERE id = ANY (ARRAY(
                       SELECT id FROM {{schema}}.jobs
                        WHERE state = 'ready' AND queue = ?
                          AND NOT EXISTS (SELECT 1 FROM {{schema}}.queues q WHERE q.name = ? AND q.paused)
                        ORDER BY priority, run_at, id
                        LIMIT ?
                        FOR NO KEY UPDATE SKIP LOCKED))
               AND """ + CLAIM_ASYNC_COMMIT + CLAIM_RETURNING;

    /*
     * The claim of a queue with concurrency caps (cluster-wide, and per tenant). Claimers of such a
     * queue serialize on an advisory lock held by the caller's transaction, so the running counts
     * they read stay true until they commit. FOR UPDATE cannot share a query level with the per-tenant
     * selection, so the selection is done first without locks and the chosen rows are locked (SKIP
     * LOCKED) one level up. Tenants are enumerated with a loose index scan (one index probe per
     * tenant) and each contributes at most its cap minus its running jobs, in claim order; so a
     * tenant with 500,000 ready jobs costs the claim no more than one with five. Jobs without a
     * tenant come from a bounded look-ahead of the first 1,000 ready jobs in claim order.
     */
    private static final String JOB_CLAIM_CAPPED = """
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
            """ + CLAIM_SET + """

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
               AND """ + CLAIM_ASYNC_COMMIT + CLAIM_RETURNING;

    private static final String QUEUE_CLAIM_LOCK = """
            SELECT pg_advisory_xact_lock(hashtext('docket.claim.{{schema_name}}.' || ?))""";

    private static final String QUEUE_LIST = """
            SELECT name, paused, max_running, tenant_max_running, updated_at FROM {{schema}}.queues ORDER BY name""";

    /* A changed queue wakes its workers: a resumed queue is claimed at once, not at the next poll. */
    private static final String QUEUE_SET_PAUSED = """
            WITH upsert AS (
                INSERT INTO {{schema}}.queues AS q (name, paused) VALUES (?, ?)
                ON CONFLICT (name) DO UPDATE SET paused = EXCLUDED.paused, updated_at = now()
                RETURNING name
            )
            SELECT name, pg_notify('{{channel}}', name) FROM upsert""";

    private static final String QUEUE_SET_LIMITS = """
            WITH upsert AS (
                INSERT INTO {{schema}}.queues AS q (name, max_running, tenant_max_running) VALUES (?, ?, ?)
                ON CONFLICT (name) DO UPDATE
                   SET max_running = EXCLUDED.max_running, tenant_max_running = EXCLUDED.tenant_max_running,
                       updated_at = now()
                RETURNING name
            )
            SELECT name, pg_notify('{{channel}}', name) FROM upsert""";

    /**
     * Fenced: a row matches only while this worker still holds this attempt's claim. Fenced
     * statements return the (id, attempt) fences that matched.
     */
    private static final String FENCE = """
            j.id = f.id AND j.attempt = f.attempt AND j.locked_by = ? AND j.state = 'running'""";

    private static final String JOB_COMPLETE_MANY_TO_HISTORY = """
            WITH done AS (
                DELETE FROM {{schema}}.jobs j
                 USING unnest(?::bigint[], ?::int[]) AS f(id, attempt)
                 WHERE %s
                RETURNING j.*
            ), moved AS (
                INSERT INTO {{schema}}.job_history (%s, state)
                SELECT %s, 'completed' FROM done
            )
            SELECT id, attempt FROM done""".formatted(FENCE, JOB_COLUMNS, JOB_COLUMNS);

    private static final String JOB_COMPLETE_MANY_DISCARD = """
            DELETE FROM {{schema}}.jobs j
             USING unnest(?::bigint[], ?::int[]) AS f(id, attempt)
             WHERE %s
            RETURNING j.id, j.attempt""".formatted(FENCE);

    /* Retries go to 'scheduled': only due jobs are 'ready', which keeps the claim free of a run_at filter. */
    private static final String JOB_RETRY_MANY = """
            UPDATE {{schema}}.jobs j
               SET state = 'scheduled',
                   run_at = now() + f.delay_ms * interval '1 millisecond',
                   lease_until = NULL, locked_by = NULL,
                   errors = j.errors || jsonb_build_array(jsonb_build_object(
                       'attempt', j.attempt, 'at', now(), 'error', f.error, 'worker', j.locked_by))
              FROM unnest(?::bigint[], ?::int[], ?::bigint[], ?::text[]) AS f(id, attempt, delay_ms, error)
             WHERE %s
            RETURNING j.id, j.attempt""".formatted(FENCE);

    private static final String JOB_SNOOZE_MANY = """
            UPDATE {{schema}}.jobs j
               SET state = CASE WHEN f.delay_ms <= 0 THEN 'ready' ELSE 'scheduled' END,
                   run_at = now() + f.delay_ms * interval '1 millisecond',
                   attempt = j.attempt - 1, lease_until = NULL, locked_by = NULL
              FROM unnest(?::bigint[], ?::int[], ?::bigint[]) AS f(id, attempt, delay_ms)
             WHERE %s
            RETURNING j.id, f.attempt""".formatted(FENCE);

    private static final String DEAD_JOB_INSERT_FROM_JOBS = """
            WITH gone AS (
                DELETE FROM {{schema}}.jobs j
                 USING unnest(?::bigint[], ?::int[], ?::text[], ?::text[]) AS f(id, attempt, error, reason)
                 WHERE %s
                RETURNING j.*, f.error AS f_error, f.reason AS f_reason
            )
            INSERT INTO {{schema}}.dead_jobs (%s, reason)
            SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts,
                   tenant, unique_key, metadata,
                   errors || jsonb_build_array(jsonb_build_object(
                       'attempt', attempt, 'at', now(), 'error', f_error, 'worker', locked_by)),
                   created_at, attempted_at, f_reason
              FROM gone
            RETURNING id, attempt""".formatted(FENCE, JOB_COLUMNS);

    /* A released job was interrupted by a shutdown, not failed: its attempt is given back if it stopped. */
    private static final String JOB_RELEASE_MANY = """
            UPDATE {{schema}}.jobs j
               SET state = 'ready', attempt = j.attempt - f.give_back, lease_until = NULL, locked_by = NULL
              FROM unnest(?::bigint[], ?::int[], ?::int[]) AS f(id, attempt, give_back)
             WHERE %s
            RETURNING j.id, f.attempt""".formatted(FENCE);

    /*
     * Touches only lease_until, which is in no index and no index predicate: a HOT update. Rows that
     * another transaction holds are skipped, never waited for: the worker's own completer may be
     * writing them (in another order, which would deadlock), and a rescue or cancel means they are
     * lost anyway. A skipped job counts as not extended, which only matters while its handler runs.
     */
    private static final String JOB_HEARTBEAT_MANY = """
            UPDATE {{schema}}.jobs j
               SET lease_until = now() + f.lease_ms * interval '1 millisecond'
              FROM unnest(?::bigint[], ?::int[], ?::bigint[]) AS f(id, attempt, lease_ms)
             WHERE %s
               AND j.id = ANY (ARRAY(SELECT id FROM {{schema}}.jobs WHERE id = ANY (?::bigint[])
                                     FOR NO KEY UPDATE SKIP LOCKED))
            RETURNING j.id, j.attempt""".formatted(FENCE);

    private static final String JOB_PROMOTE_DUE = """
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
            SELECT queue, count(*), pg_notify('{{channel}}', queue) FROM promoted GROUP BY queue""";

    private static final String EXPIRED_LEASES = """
            SELECT id FROM {{schema}}.jobs
             WHERE state = 'running' AND lease_until < now() AND id > ?
             ORDER BY id
             LIMIT ?
             FOR NO KEY UPDATE SKIP LOCKED""";

    /* Rescue works in pages by id, so a page of rows it cannot take (locked) never stalls it. */
    private static final String DEAD_JOB_INSERT_EXPIRED = """
            WITH gone AS (
                DELETE FROM {{schema}}.jobs
                 WHERE id = ANY (?::bigint[]) AND state = 'running' AND lease_until < now()
                   AND attempt >= max_attempts
                RETURNING *
            )
            INSERT INTO {{schema}}.dead_jobs (%s, reason)
            SELECT id, queue, kind, payload, payload_version, priority, run_at, attempt, max_attempts,
                   tenant, unique_key, metadata,
                   errors || jsonb_build_array(jsonb_build_object(
                       'attempt', attempt, 'at', now(), 'worker', locked_by,
                       'error', 'lease expired: worker ' || coalesce(locked_by, '?') || ' lost its lease')),
                   created_at, attempted_at,
                   'attempts exhausted (' || max_attempts || '); the last worker lost its lease'
              FROM gone
            RETURNING id""".formatted(JOB_COLUMNS);

    private static final String JOB_RESCUE_EXPIRED = """
            UPDATE {{schema}}.jobs
               SET state = 'ready', lease_until = NULL, locked_by = NULL,
                   errors = errors || jsonb_build_array(jsonb_build_object(
                       'attempt', attempt, 'at', now(), 'worker', locked_by,
                       'error', 'lease expired: worker ' || coalesce(locked_by, '?') || ' lost its lease'))
             WHERE id = ANY (?::bigint[]) AND state = 'running' AND lease_until < now()
            RETURNING queue""";

    /* Dead row versions in the hot table, as the statistics system last saw them (at most about a second old). */
    private static final String JOB_DEAD_ROWS = """
            SELECT pg_stat_get_dead_tuples('{{schema}}.jobs'::regclass)""";

    /* SKIP_LOCKED: an autovacuum (or DDL) already holding the table makes this a no-op instead of a wait. */
    private static final String JOB_VACUUM = """
            VACUUM (SKIP_LOCKED) {{schema}}.jobs""";

    private static final String HISTORY_CREATE_PARTITIONS = """
            SELECT {{schema}}.create_history_partitions(?::int)""";

    private static final String HISTORY_DROP_PARTITIONS = """
            SELECT {{schema}}.drop_history_partitions(? * interval '1 millisecond')""";

    private static final String DEAD_JOB_DELETE_EXPIRED = """
            DELETE FROM {{schema}}.dead_jobs
             WHERE id = ANY (ARRAY(
                       SELECT id FROM {{schema}}.dead_jobs
                        WHERE died_at < now() - ? * interval '1 millisecond'
                        LIMIT ?))""";

    /* One snapshot for all three tables: a job moving between them is seen exactly once. */
    private static final String JOB_FIND = """
            SELECT %1$s, state, NULL::timestamptz AS finished_at, lease_until, locked_by, NULL AS reason
              FROM {{schema}}.jobs WHERE id = ?
            UNION ALL
            SELECT %1$s, state, finished_at, NULL, NULL, NULL
              FROM {{schema}}.job_history WHERE id = ?
            UNION ALL
            SELECT %1$s, 'dead', died_at, NULL, NULL, reason
              FROM {{schema}}.dead_jobs WHERE id = ?
            LIMIT 1""".formatted(JOB_COLUMNS);

    /*
     * Elects or re-elects in one statement: it takes the role when nobody holds it or the holder's
     * lease ran out, renews it when this node holds it, and returns nothing otherwise. The term goes
     * up whenever the holder changes or a lease had lapsed. `now` may be passed by tests.
     */
    private static final String LEADER_ATTEMPT_ELECT = """
            INSERT INTO {{schema}}.leaders AS l (role, leader_id, term, elected_at, expires_at)
            SELECT ?, ?, 1, t.now, t.now + ? * interval '1 millisecond'
              FROM (SELECT coalesce(?::timestamptz, now()) AS now) t
            ON CONFLICT (role) DO UPDATE
               SET leader_id = EXCLUDED.leader_id,
                   term = CASE WHEN l.leader_id = EXCLUDED.leader_id AND l.expires_at > EXCLUDED.elected_at
                               THEN l.term ELSE l.term + 1 END,
                   elected_at = CASE WHEN l.leader_id = EXCLUDED.leader_id AND l.expires_at > EXCLUDED.elected_at
                                     THEN l.elected_at ELSE EXCLUDED.elected_at END,
                   expires_at = EXCLUDED.expires_at
             WHERE l.leader_id = EXCLUDED.leader_id OR l.expires_at <= EXCLUDED.elected_at
            RETURNING term""";

    /* Resigning expires the row rather than deleting it, so that the next holder's term is higher. */
    private static final String LEADER_RESIGN = """
            UPDATE {{schema}}.leaders SET expires_at = '-infinity' WHERE role = ? AND leader_id = ?""";

    private static final String LEADER_FIND = """
            SELECT leader_id, term, elected_at, expires_at FROM {{schema}}.leaders
             WHERE role = ? AND expires_at > now()""";

    /* Cancelling moves a waiting or running job to the history at once; a worker still running it
       finds out at its next heartbeat (the fenced update matches nothing) and interrupts it. */
    private static final String JOB_CANCEL = """
            WITH gone AS (
                DELETE FROM {{schema}}.jobs WHERE id = ? RETURNING *
            ), moved AS (
                INSERT INTO {{schema}}.job_history (%1$s, state)
                SELECT %1$s, 'cancelled' FROM gone
            )
            SELECT state, queue FROM gone""".formatted(JOB_COLUMNS);

    /* List views never select payloads: a page of huge payloads must not be read to show ids. */
    private static final String SUMMARY_COLUMNS = """
            id, queue, kind, priority, attempt, max_attempts, run_at, created_at, attempted_at, tenant""";

    /*
     * One keyset page of jobs across the three tables, newest id first; each filter is optional
     * (NULL matches all). The state filter picks the table(s) before any row is read.
     */
    private static final String JOB_LIST = """
            SELECT * FROM (
                SELECT %1$s, state, NULL::timestamptz AS finished_at, jsonb_array_length(errors) AS error_count,
                       NULL AS reason
                  FROM {{schema}}.jobs
                 WHERE (?::text IS NULL OR state = ?) AND (?::text IS NULL OR queue = ?) AND (?::text IS NULL OR kind = ?)
                   AND id < ?
                UNION ALL
                SELECT %1$s, state, finished_at, jsonb_array_length(errors), NULL
                  FROM {{schema}}.job_history
                 WHERE (?::text IS NULL OR state = ?) AND (?::text IS NULL OR queue = ?) AND (?::text IS NULL OR kind = ?)
                   AND id < ?
                UNION ALL
                SELECT %1$s, 'dead', died_at, jsonb_array_length(errors), reason
                  FROM {{schema}}.dead_jobs
                 WHERE (?::text IS NULL OR 'dead' = ?) AND (?::text IS NULL OR queue = ?) AND (?::text IS NULL OR kind = ?)
                   AND id < ?
            ) j
            ORDER BY id DESC
            LIMIT ?""".formatted(SUMMARY_COLUMNS);

    private static final String DEAD_JOB_LIST = """
            SELECT %s, 'dead', died_at, jsonb_array_length(errors), reason
              FROM {{schema}}.dead_jobs
             WHERE (?::text IS NULL OR kind = ?)
               AND (?::text IS NULL OR strpos(lower(errors::text || ' ' || reason), lower(?)) > 0)
               AND id < ?
             ORDER BY id DESC
             LIMIT ?""".formatted(SUMMARY_COLUMNS);

    /*
     * Groups by the first line of the last error, without the exception's package and cut to 200
     * characters: the exception's simple name and its message.
     */
    private static final String DEAD_JOB_GROUPS = """
            SELECT kind, left(regexp_replace(split_part(coalesce(errors -> -1 ->> 'error', reason), E'\n', 1),
                                             '^([a-z_][a-z0-9_]*\\.)+', ''), 200) AS error,
                   count(*), min(died_at), max(died_at)
              FROM {{schema}}.dead_jobs
             WHERE (?::text IS NULL OR kind = ?)
             GROUP BY 1, 2
             ORDER BY count(*) DESC, max(died_at) DESC
             LIMIT ?""";

    /*
     * Replays dead jobs: back to ready with a fresh attempt budget, keeping their error history.
     * A dead job whose unique key a live job holds now stays dead (replaying it would duplicate).
     */
    private static final String DEAD_JOB_REPLAY = """
            WITH revived AS (
                DELETE FROM {{schema}}.dead_jobs d
                 WHERE d.id = ANY (?::bigint[])
                   AND NOT EXISTS (SELECT 1 FROM {{schema}}.jobs j WHERE j.unique_key = d.unique_key)
                RETURNING d.*
            ), inserted AS (
                INSERT INTO {{schema}}.jobs (id, queue, kind, payload, payload_version, priority, state, run_at,
                                             attempt, max_attempts, tenant, unique_key, metadata, errors, created_at)
                SELECT id, queue, kind, payload, payload_version, priority, 'ready', now(), 0, max_attempts,
                       tenant, unique_key, metadata, errors, created_at
                  FROM revived
                RETURNING id, queue
            )
            SELECT id, pg_notify('{{channel}}', queue) FROM inserted""";

    private static final String JOB_RUN_NOW = """
            WITH due AS (
                UPDATE {{schema}}.jobs SET state = 'ready', run_at = now()
                 WHERE id = ? AND state = 'scheduled'
                RETURNING queue
            )
            SELECT pg_notify('{{channel}}', queue) FROM due""";

    /* Counts of the hot table only (live jobs), so they stay cheap however large the history grows. */
    private static final String STATS_LIVE = """
            SELECT queue, kind,
                   count(*) FILTER (WHERE state = 'scheduled'),
                   count(*) FILTER (WHERE state = 'ready'),
                   count(*) FILTER (WHERE state = 'running'),
                   extract(epoch FROM now() - min(run_at) FILTER (WHERE state = 'ready')),
                   count(*) FILTER (WHERE state = 'scheduled' AND jsonb_array_length(errors) > 0
                                      AND (errors -> -1 ->> 'at')::timestamptz > now() - interval '1 minute')
              FROM {{schema}}.jobs
             GROUP BY queue, kind""";

    /* Pickup latency: from due (run_at) to claimed (attempted_at) for first attempts of the last five minutes. */
    private static final String STATS_HISTORY = """
            SELECT queue, kind,
                   count(*) FILTER (WHERE state = 'completed' AND finished_at > now() - interval '1 minute'),
                   percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - run_at) * 1000)
                       FILTER (WHERE attempt = 1),
                   percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM attempted_at - run_at) * 1000)
                       FILTER (WHERE attempt = 1)
              FROM {{schema}}.job_history
             WHERE finished_at > now() - interval '5 minutes' AND attempted_at IS NOT NULL
             GROUP BY queue, kind""";

    private static final String STATS_DEAD = """
            SELECT queue, kind, count(*),
                   count(*) FILTER (WHERE died_at > now() - interval '24 hours'),
                   count(*) FILTER (WHERE died_at > now() - interval '1 minute')
              FROM {{schema}}.dead_jobs
             GROUP BY queue, kind""";

    /* Takes a unique key for a period, or renews it once its period is over; returns nothing while it is held. */
    private static final String UNIQUE_KEY_ACQUIRE = """
            INSERT INTO {{schema}}.unique_keys AS u (key, job_id, expires_at)
            VALUES (?, ?, now() + ? * interval '1 millisecond')
            ON CONFLICT (key) DO UPDATE SET job_id = EXCLUDED.job_id, expires_at = EXCLUDED.expires_at
             WHERE u.expires_at <= now()
            RETURNING job_id""";

    private static final String UNIQUE_KEY_HOLDER = """
            SELECT job_id FROM {{schema}}.unique_keys WHERE key = ?""";

    private static final String UNIQUE_KEY_POINT = """
            UPDATE {{schema}}.unique_keys SET job_id = ? WHERE key = ?""";

    private static final String UNIQUE_KEY_DELETE_EXPIRED = """
            DELETE FROM {{schema}}.unique_keys
             WHERE key = ANY (ARRAY(SELECT key FROM {{schema}}.unique_keys WHERE expires_at < now() LIMIT ?))""";

    /* Reads only the running set, which is at most the cluster's concurrency. */
    private static final String STATS_RUNNING_BY_TENANT = """
            SELECT queue, tenant, count(*) FROM {{schema}}.jobs
             WHERE state = 'running'
             GROUP BY queue, tenant
             ORDER BY queue, count(*) DESC""";

    private static final String CRON_SLOT_FIND = """
            SELECT last_slot, now() FROM {{schema}}.cron_slots WHERE name = ?""";

    private static final String CRON_SLOT_INIT = """
            INSERT INTO {{schema}}.cron_slots (name, last_slot) VALUES (?, ?) ON CONFLICT (name) DO NOTHING""";

    /* Advances only forward: of two leaders racing for one slot, exactly one updates the row. */
    private static final String CRON_SLOT_ADVANCE = """
            UPDATE {{schema}}.cron_slots SET last_slot = ?, updated_at = now()
             WHERE name = ? AND last_slot < ?""";

    private static final String DB_NOW = """
            SELECT now()""";

    private static final String SCHEMA_VERSION_TABLE = """
            SELECT to_regclass('{{schema}}.schema_migrations')::text""";

    private static final String SCHEMA_VERSION = """
            SELECT coalesce(max(version), 0) FROM {{schema}}.schema_migrations""";

    public final String jobInsertMany;
    public final String jobInsertManyKeyed;
    public final String jobInsertOne;
    public final String jobInsertOneKeyed;
    public final String jobReserveIds;
    public final String jobFindByUniqueKeys;
    public final String queueNotify;
    public final String jobClaim;
    public final String jobClaimCapped;
    public final String queueClaimLock;
    public final String queueList;
    public final String queueSetPaused;
    public final String queueSetLimits;
    public final String jobCompleteManyToHistory;
    public final String jobCompleteManyDiscard;
    public final String jobRetryMany;
    public final String jobSnoozeMany;
    public final String deadJobInsertFromJobs;
    public final String jobReleaseMany;
    public final String jobHeartbeatMany;
    public final String jobPromoteDue;
    public final String jobExpiredLeases;
    public final String deadJobInsertExpired;
    public final String jobRescueExpired;
    public final String jobDeadRows;
    public final String jobVacuum;
    public final String historyCreatePartitions;
    public final String historyDropPartitions;
    public final String deadJobDeleteExpired;
    public final String jobFind;
    public final String schemaVersionTable;
    public final String statsRunningByTenant;
    public final String uniqueKeyAcquire;
    public final String uniqueKeyHolder;
    public final String uniqueKeyPoint;
    public final String uniqueKeyDeleteExpired;
    public final String cronSlotFind;
    public final String cronSlotInit;
    public final String cronSlotAdvance;
    public final String dbNow;
    public final String schemaVersion;
    public final String leaderAttemptElect;
    public final String leaderResign;
    public final String leaderFind;
    public final String jobCancel;
    public final String jobList;
    public final String deadJobList;
    public final String deadJobReplay;
    public final String deadJobGroups;
    public final String jobRunNow;
    public final String statsLive;
    public final String statsHistory;
    public final String statsDead;

    private Sql(SchemaName schema) {
        jobInsertMany = bind(JOB_INSERT_SELECT + JOB_INSERT_RETURNING, schema);
        jobInsertManyKeyed = bind(JOB_INSERT_SELECT + JOB_INSERT_KEYED + JOB_INSERT_RETURNING, schema);
        jobInsertOne = bind(JOB_INSERT_ONE + JOB_INSERT_RETURNING, schema);
        jobInsertOneKeyed = bind(JOB_INSERT_ONE + JOB_INSERT_KEYED + JOB_INSERT_RETURNING, schema);
        jobReserveIds = bind(JOB_RESERVE_IDS, schema);
        jobFindByUniqueKeys = bind(JOB_FIND_BY_UNIQUE_KEYS, schema);
        queueNotify = bind(QUEUE_NOTIFY, schema);
        jobClaim = bind(JOB_CLAIM, schema);
        jobClaimCapped = bind(JOB_CLAIM_CAPPED, schema);
        queueClaimLock = bind(QUEUE_CLAIM_LOCK, schema);
        queueList = bind(QUEUE_LIST, schema);
        queueSetPaused = bind(QUEUE_SET_PAUSED, schema);
        queueSetLimits = bind(QUEUE_SET_LIMITS, schema);
        jobCompleteManyToHistory = bind(JOB_COMPLETE_MANY_TO_HISTORY, schema);
        jobCompleteManyDiscard = bind(JOB_COMPLETE_MANY_DISCARD, schema);
        jobRetryMany = bind(JOB_RETRY_MANY, schema);
        jobSnoozeMany = bind(JOB_SNOOZE_MANY, schema);
        deadJobInsertFromJobs = bind(DEAD_JOB_INSERT_FROM_JOBS, schema);
        jobReleaseMany = bind(JOB_RELEASE_MANY, schema);
        jobHeartbeatMany = bind(JOB_HEARTBEAT_MANY, schema);
        jobPromoteDue = bind(JOB_PROMOTE_DUE, schema);
        jobExpiredLeases = bind(EXPIRED_LEASES, schema);
        deadJobInsertExpired = bind(DEAD_JOB_INSERT_EXPIRED, schema);
        jobRescueExpired = bind(JOB_RESCUE_EXPIRED, schema);
        jobDeadRows = bind(JOB_DEAD_ROWS, schema);
        jobVacuum = bind(JOB_VACUUM, schema);
        historyCreatePartitions = bind(HISTORY_CREATE_PARTITIONS, schema);
        historyDropPartitions = bind(HISTORY_DROP_PARTITIONS, schema);
        deadJobDeleteExpired = bind(DEAD_JOB_DELETE_EXPIRED, schema);
        jobFind = bind(JOB_FIND, schema);
        schemaVersionTable = bind(SCHEMA_VERSION_TABLE, schema);
        statsRunningByTenant = bind(STATS_RUNNING_BY_TENANT, schema);
        uniqueKeyAcquire = bind(UNIQUE_KEY_ACQUIRE, schema);
        uniqueKeyHolder = bind(UNIQUE_KEY_HOLDER, schema);
        uniqueKeyPoint = bind(UNIQUE_KEY_POINT, schema);
        uniqueKeyDeleteExpired = bind(UNIQUE_KEY_DELETE_EXPIRED, schema);
        cronSlotFind = bind(CRON_SLOT_FIND, schema);
        cronSlotInit = bind(CRON_SLOT_INIT, schema);
        cronSlotAdvance = bind(CRON_SLOT_ADVANCE, schema);
        dbNow = DB_NOW;
        schemaVersion = bind(SCHEMA_VERSION, schema);
        leaderAttemptElect = bind(LEADER_ATTEMPT_ELECT, schema);
        leaderResign = bind(LEADER_RESIGN, schema);
        leaderFind = bind(LEADER_FIND, schema);
        jobCancel = bind(JOB_CANCEL, schema);
        jobList = bind(JOB_LIST, schema);
        deadJobList = bind(DEAD_JOB_LIST, schema);
        deadJobReplay = bind(DEAD_JOB_REPLAY, schema);
        deadJobGroups = bind(DEAD_JOB_GROUPS, schema);
        jobRunNow = bind(JOB_RUN_NOW, schema);
        statsLive = bind(STATS_LIVE, schema);
        statsHistory = bind(STATS_HISTORY, schema);
        statsDead = bind(STATS_DEAD, schema);
    }

    public static Sql forSchema(SchemaName schema) {
        return new Sql(schema);
    }

    /** Substitutes the schema placeholders into a statement or a migration script. */
    public static String bind(String text, SchemaName schema) {
        return text.replace("{{schema}}", schema.quoted())
                .replace("{{schema_name}}", schema.name())
                .replace("{{channel}}", schema.channel());
    }

    // ---------------------------------------------------------------------------------------------
    // Typed kinds (issue 10, section 3): the wait for a newer payload version, and dead-letter replays
    // at a rate. Kept apart so that they move in one piece with the rest of the SQL.
    // ---------------------------------------------------------------------------------------------

    /** The statements of the payload-version wait and of dead-letter replays, bound to one schema. */
    public static final class KindsAndReplays {

        /* Database times in metadata: ISO-8601 in UTC, to the microsecond, as Instant.parse reads them. */
        private static final String ISO_UTC = "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'";

        /*
         * Puts back a job whose payload version is newer than the worker's handler reads: like a snooze
         * (the attempt is given back), fenced, noting in its metadata why it waits and since when. The
         * wait goes on while the job comes back at the time this statement set (docket.waitingNext); a
         * job that reaches a worker any other way (replayed, retried, run now) starts a new wait.
         */
        private static final String JOB_AWAIT_NEWER_VERSION = """
                WITH w AS (SELECT now() + ? * interval '1 millisecond' AS next)
                UPDATE {{schema}}.jobs j
                   SET state = 'scheduled', run_at = w.next, attempt = j.attempt - 1, lease_until = NULL,
                       locked_by = NULL,
                       metadata = j.metadata || jsonb_build_object(
                           'docket.waiting', ?::text,
                           'docket.waitingSince',
                               CASE WHEN j.metadata ->> 'docket.waitingNext' = to_char(j.run_at AT TIME ZONE 'UTC', %1$s)
                                    THEN j.metadata ->> 'docket.waitingSince'
                                    ELSE to_char(now() AT TIME ZONE 'UTC', %1$s) END,
                           'docket.waitingNext', to_char(w.next AT TIME ZONE 'UTC', %1$s))
                  FROM w
                 WHERE j.id = ? AND j.attempt = ? AND j.locked_by = ? AND j.state = 'running'""".formatted(ISO_UTC);

        private static final String REPLAY_COLUMNS = """
                id, kind, error_contains, before_id, rate_per_second, max_jobs, matched, scanned, replayed, state,
                created_at, finished_at""";

        /*
         * Starts a replay: counts the dead jobs that match now (with the listing's own filter, so the two
         * never disagree), at most max_jobs, and starts the keyset cursor above the newest of them.
         */
        private static final String DEAD_JOB_REPLAY_START = """
                WITH m AS (SELECT count(*)::int AS n, max(id) AS top FROM (%s) l)
                INSERT INTO {{schema}}.dead_job_replays
                       (kind, error_contains, before_id, rate_per_second, max_jobs, matched, next_before, state, finished_at)
                SELECT ?, ?, ?, ?, ?, m.n, m.top + 1, CASE WHEN m.n = 0 THEN 'done' ELSE 'running' END,
                       CASE WHEN m.n = 0 THEN now() END
                  FROM m
                RETURNING %s""".formatted(DEAD_JOB_LIST, REPLAY_COLUMNS);

        /*
         * One turn of every running replay: each earns rate_per_second jobs per second of the database
         * clock since its last turn, up to one second's worth (so a leader that was away does not make
         * up for it in a burst).
         */
        private static final String DEAD_JOB_REPLAY_TURN = """
                UPDATE {{schema}}.dead_job_replays
                   SET credit = least(greatest(rate_per_second, 1),
                                      credit + rate_per_second * extract(epoch FROM now() - turned_at)),
                       turned_at = now()
                 WHERE state = 'running'
                RETURNING id, kind, error_contains, next_before, max_jobs - scanned, credit""";

        private static final String DEAD_JOB_REPLAY_ADVANCE = """
                UPDATE {{schema}}.dead_job_replays
                   SET scanned = scanned + ?, replayed = replayed + ?, next_before = ?, credit = credit - ?,
                       state = CASE WHEN ? THEN 'done' ELSE state END,
                       finished_at = CASE WHEN ? THEN now() END
                 WHERE id = ? AND state = 'running'""";

        private static final String DEAD_JOB_REPLAY_FIND = """
                SELECT %s FROM {{schema}}.dead_job_replays WHERE id = ?""".formatted(REPLAY_COLUMNS);

        private static final String DEAD_JOB_REPLAY_LIST = """
                SELECT %s FROM {{schema}}.dead_job_replays ORDER BY id DESC LIMIT ?""".formatted(REPLAY_COLUMNS);

        private static final String DEAD_JOB_REPLAY_DELETE_FINISHED = """
                DELETE FROM {{schema}}.dead_job_replays
                 WHERE state = 'done' AND finished_at < now() - ? * interval '1 millisecond'""";

        public final String jobAwaitNewerVersion;
        public final String deadJobReplayStart;
        public final String deadJobReplayTurn;
        public final String deadJobReplayAdvance;
        public final String deadJobReplayFind;
        public final String deadJobReplayList;
        public final String deadJobReplayDeleteFinished;

        public KindsAndReplays(SchemaName schema) {
            jobAwaitNewerVersion = bind(JOB_AWAIT_NEWER_VERSION, schema);
            deadJobReplayStart = bind(DEAD_JOB_REPLAY_START, schema);
            deadJobReplayTurn = bind(DEAD_JOB_REPLAY_TURN, schema);
            deadJobReplayAdvance = bind(DEAD_JOB_REPLAY_ADVANCE, schema);
            deadJobReplayFind = bind(DEAD_JOB_REPLAY_FIND, schema);
            deadJobReplayList = bind(DEAD_JOB_REPLAY_LIST, schema);
            deadJobReplayDeleteFinished = bind(DEAD_JOB_REPLAY_DELETE_FINISHED, schema);
        }
    }
}
