-- Docket schema, version 9: dead-letter triage by error signature (DocketAdmin.deadJobGroups,
-- DeadJobQuery.withSignature, replays by signature). A signature is the normalised first line of a
-- dead job's last error (dev.docket.internal.text.ErrorSignature: numbers, ids, UUIDs, hex and
-- quoted values stripped), computed by Docket in Java and filled in for the dead jobs that lack it
-- before each read that groups or filters by it. Both columns are nullable without a default, so
-- adding them rewrites nothing; no existing statement changes.
ALTER TABLE {{schema}}.dead_jobs ADD COLUMN error_signature text;

-- Groups and filters read (kind, signature); the partial index finds the rows still to be signed.
CREATE INDEX dead_jobs_signature_idx ON {{schema}}.dead_jobs (kind, error_signature);
CREATE INDEX dead_jobs_unsigned_idx ON {{schema}}.dead_jobs (id) WHERE error_signature IS NULL;

-- A replay at a rate may be limited to one signature (null: any).
ALTER TABLE {{schema}}.dead_job_replays ADD COLUMN signature text;
