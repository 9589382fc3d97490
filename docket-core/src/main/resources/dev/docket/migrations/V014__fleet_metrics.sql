-- Docket schema, version 14: the cluster's outcome counters, each worker's recent throughput in its
-- registry row, and a queue's backlog as one SQL function (for autoscalers that run a query).

-- The cluster's totals of completed jobs, failed attempts and dead jobs by queue and kind, since this
-- migration. Every statement that writes an outcome (a worker's completion batch, the rescuer's page)
-- appends one row per queue and kind it touched to job_count_deltas, in its own statement and so in
-- its own transaction: a count exists if and only if its outcome does. Appending takes no lock that
-- another writer could wait for (an upsert of shared or per-worker rows would: a completion batch
-- would then wait for another worker's commit, or for its own worker's transactional handlers).
-- The maintenance leader folds the deltas into job_counts every round, deleting them in the same
-- transaction; readers add both tables up in one statement, so a total never goes down. Both are
-- logged tables: a crash must not lose the count of an outcome it kept. Counts do not depend on the
-- history or the dead-letter table, so pruning either changes none.
CREATE TABLE {{schema}}.job_counts (
    queue     text   NOT NULL,
    kind      text   NOT NULL,
    completed bigint NOT NULL DEFAULT 0,
    failed    bigint NOT NULL DEFAULT 0,
    dead      bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, kind)
);

-- No index, no key: an append is a heap insert and nothing else. Rows live about a maintenance round.
CREATE TABLE {{schema}}.job_count_deltas (
    queue     text   NOT NULL,
    kind      text   NOT NULL,
    completed bigint NOT NULL DEFAULT 0,
    failed    bigint NOT NULL DEFAULT 0,
    dead      bigint NOT NULL DEFAULT 0
) WITH (autovacuum_vacuum_cost_delay = 0);

-- What each worker reports about its recent work at every heartbeat: handlers running now, and
-- attempts it finished (written: completed, failed or dead) and failed in the last minute, so that
-- an operator sees a slow or idle process without scraping it. Workers of earlier versions leave
-- the defaults.
ALTER TABLE {{schema}}.workers
    ADD COLUMN handlers_running     integer NOT NULL DEFAULT 0,
    ADD COLUMN finished_last_minute bigint  NOT NULL DEFAULT 0,
    ADD COLUMN failed_last_minute   bigint  NOT NULL DEFAULT 0;

-- A queue's backlog as autoscalers read it: jobs a worker could claim now, that is ready jobs and
-- scheduled jobs already due (the maintenance leader makes those ready within its next round).
-- Jobs waiting behind a sequence, a dependency or a later run_at are not counted; a paused queue
-- still reports its backlog. Two index scans (the claim index and the scheduled index).
-- SECURITY DEFINER, and EXECUTE revoked from PUBLIC: an autoscaler's role is granted EXECUTE on this
-- function alone, and needs no SELECT on the jobs table (whose payloads it must not read).
CREATE FUNCTION {{schema}}.queue_backlog(queue text) RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    IF queue IS NULL OR queue !~ '^[A-Za-z0-9_.:-]{1,128}$' THEN
        RAISE EXCEPTION 'docket.queue_backlog: queue must be 1 to 128 characters of A-Z a-z 0-9 _ . : -'
            USING ERRCODE = '22023';
    END IF;
    RETURN (SELECT count(*) FROM {{schema}}.jobs j WHERE j.state = 'ready' AND j.queue = queue_backlog.queue)
         + (SELECT count(*) FROM {{schema}}.jobs j
             WHERE j.state = 'scheduled' AND j.run_at <= now() AND j.queue = queue_backlog.queue);
END
$fn$;

REVOKE EXECUTE ON FUNCTION {{schema}}.queue_backlog(text) FROM PUBLIC;
