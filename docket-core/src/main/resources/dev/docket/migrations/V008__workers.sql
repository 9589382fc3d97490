-- Docket schema, version 8: live workers as rows, and service-level objectives.
--
-- Each worker writes its row when it starts and again every heartbeat interval (WorkerRegistry),
-- and deletes it when it stops gracefully. A worker is live while its last heartbeat is younger than
-- three heartbeat intervals; a row whose heartbeats stopped stays an hour, so that doctor can name
-- the worker that vanished, and is then pruned by the next round of any worker. The table is
-- unlogged: every worker rewrites its row within seconds, so losing it in a crash costs nothing,
-- and its heartbeats write no WAL.
CREATE UNLOGGED TABLE {{schema}}.workers (
    id                    text        PRIMARY KEY,
    host                  text        NOT NULL,
    pid                   bigint      NOT NULL,
    -- {"queue": concurrency, ...} and {"kind": payload version its handler reads, ...}
    queues                jsonb       NOT NULL,
    kinds                 jsonb       NOT NULL,
    version               text        NOT NULL,
    -- The pool's maximum size when the pool tells it (null otherwise), and what the worker needs.
    pool_size             integer,
    connections_needed    integer     NOT NULL,
    listen                boolean     NOT NULL,
    listening             boolean     NOT NULL,
    -- Services whose round has waited longer than the stall timeout (for a pool connection, say).
    stalled               text[]      NOT NULL DEFAULT '{}',
    heartbeat_interval_ms bigint      NOT NULL CHECK (heartbeat_interval_ms > 0),
    started_at            timestamptz NOT NULL DEFAULT now(),
    heartbeat_at          timestamptz NOT NULL DEFAULT now()
);

-- Service-level objectives, read by doctor and exported as gauges by the server:
-- queue_lag (the oldest ready job of a queue) and kind_pickup_p99 (due to claimed, first attempts).
CREATE TABLE {{schema}}.slos (
    scope      text             NOT NULL CHECK (scope IN ('queue_lag', 'kind_pickup_p99')),
    name       text             NOT NULL,
    seconds    double precision NOT NULL CHECK (seconds > 0),
    updated_at timestamptz      NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, name)
);
