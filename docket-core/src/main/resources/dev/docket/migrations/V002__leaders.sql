-- Docket schema, version 2: leader election for the maintenance services.

-- One row per elected role. UNLOGGED: after a crash the table is empty and the next round
-- elects a leader again, which is all a lost row costs. A table (not a session advisory lock)
-- so that election works through transaction-pooling connection poolers.
CREATE UNLOGGED TABLE {{schema}}.leaders (
    role       text        PRIMARY KEY,
    leader_id  text        NOT NULL,
    term       bigint      NOT NULL,
    elected_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
