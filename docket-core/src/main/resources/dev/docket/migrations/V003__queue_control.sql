-- Docket schema, version 3: cluster-wide queue settings (pause, concurrency caps) and the index
-- that lets a capped claim reach every tenant's jobs without walking over another tenant's wall.

CREATE TABLE {{schema}}.queues (
    name               text        PRIMARY KEY,
    paused             boolean     NOT NULL DEFAULT false,
    max_running        integer     CHECK (max_running IS NULL OR max_running >= 0),
    tenant_max_running integer     CHECK (tenant_max_running IS NULL OR tenant_max_running >= 1),
    updated_at         timestamptz NOT NULL DEFAULT now()
);

-- Only jobs that have a tenant pay for this index. The capped claim enumerates a queue's tenants
-- with it (a loose index scan: one probe per tenant) and takes each tenant's first jobs from it.
CREATE INDEX jobs_tenant_claim_idx ON {{schema}}.jobs (queue, tenant, priority, run_at, id)
    WHERE state = 'ready' AND tenant IS NOT NULL;
