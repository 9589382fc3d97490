-- Docket schema, version 4: the last enqueued slot of each periodic (cron) job. Advancing it and
-- enqueueing the slot's job happen in one transaction, so each slot is enqueued exactly once across
-- the cluster and across leader failovers. Logged: losing it could enqueue a slot twice.
CREATE TABLE {{schema}}.cron_slots (
    name       text        PRIMARY KEY,
    last_slot  timestamptz NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);
