-- Docket schema, version 11: rate limits (at most `permits` job starts per `period`, cluster-wide),
-- enforced by the claim of the queues they concern.

-- One row per limit: on a kind (wherever its jobs are queued) or on a queue (all its kinds). The row
-- is also the lock that serializes the claims a limit concerns: a claim locks it (FOR NO KEY UPDATE)
-- before it reads the limit's windows and records its starts, in the same transaction.
-- `edited`: changed at run time (API, CLI, dashboard); a node declaring the limit in its builder
-- then leaves it as edited.
CREATE TABLE {{schema}}.rate_limits (
    scope      text        NOT NULL CHECK (scope IN ('kind', 'queue')),
    name       text        NOT NULL,
    permits    integer     NOT NULL CHECK (permits BETWEEN 1 AND 1000000),
    period_ms  bigint      NOT NULL CHECK (period_ms BETWEEN 1 AND 604800000),
    per_tenant boolean     NOT NULL DEFAULT false,
    edited     boolean     NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, name)
);

-- The starts of the last period of one limit, per bucket: '' for a limit that is not partitioned
-- (and for jobs without a tenant under one that is), '=' || tenant for a tenant's own budget. `at`
-- and `n` are parallel arrays, oldest first: n starts at time at. Entries are merged into slots of
-- period/64 at the latest time of the slot, so a row stays small whatever the rate, and merging
-- only ever makes a start count for longer, never shorter.
CREATE TABLE {{schema}}.rate_limit_windows (
    scope     text          NOT NULL,
    name      text          NOT NULL,
    bucket    text          NOT NULL,
    period_ms bigint        NOT NULL,
    at        timestamptz[] NOT NULL,
    n         integer[]     NOT NULL,
    PRIMARY KEY (scope, name, bucket),
    FOREIGN KEY (scope, name) REFERENCES {{schema}}.rate_limits (scope, name) ON DELETE CASCADE
);
