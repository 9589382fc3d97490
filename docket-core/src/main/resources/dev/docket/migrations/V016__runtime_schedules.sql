-- Docket schema, version 16: periodic jobs stored in the database and edited at run time (DocketAdmin,
-- the REST API, `docket schedule`, the dashboard), beside the ones declared in code. The maintenance
-- leader reads this small table each round and enqueues the due slots of the schedules stored here
-- through cron_slots, as it does for code-declared ones: one job per slot across the cluster.

-- One row per schedule. `origin`: 'runtime' rows are created and changed by operators; 'code' rows
-- are what a leader found declared in its code (PeriodicJob), written so that every tool can show them,
-- and refused to operators' edits. `version` grows with each change: the leader enqueues a slot only if
-- the row it read is still the current one and not paused, in the slot's transaction.
-- `catch_up`: 'all' enqueues every missed slot (at most 10 per round, as code-declared schedules do);
-- 'latest' enqueues only the most recent one.
CREATE TABLE {{schema}}.schedules (
    name         text        PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9_.:-]{1,128}$'),
    origin       text        NOT NULL CHECK (origin IN ('code', 'runtime')),
    cron         text        NOT NULL,
    zone         text        NOT NULL,
    kind         text        NOT NULL,
    payload      jsonb       NOT NULL DEFAULT '{}',
    queue        text,
    priority     smallint,
    max_attempts integer     CHECK (max_attempts >= 1),
    catch_up     text        NOT NULL DEFAULT 'all' CHECK (catch_up IN ('all', 'latest')),
    paused       boolean     NOT NULL DEFAULT false,
    version      bigint      NOT NULL DEFAULT 1,
    created_at   timestamptz NOT NULL DEFAULT now(),
    created_by   text        NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT now(),
    updated_by   text        NOT NULL
);

-- The last slots each schedule enqueued (code-declared or stored), with the job of each: written in the
-- slot's transaction, the 20 newest kept per schedule. The dashboard's "last runs".
CREATE TABLE {{schema}}.schedule_runs (
    name        text        NOT NULL,
    slot        timestamptz NOT NULL,
    job_id      bigint      NOT NULL,
    enqueued_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (name, slot)
);
