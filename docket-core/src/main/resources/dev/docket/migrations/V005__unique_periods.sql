-- Docket schema, version 5: unique keys held for a period (JobOptions.uniqueFor), which outlive
-- the job itself. While a key's period runs, enqueueing another job with it returns the holder.
CREATE TABLE {{schema}}.unique_keys (
    key        text        PRIMARY KEY,
    job_id     bigint      NOT NULL,
    expires_at timestamptz NOT NULL
);

CREATE INDEX unique_keys_expires_idx ON {{schema}}.unique_keys (expires_at);
