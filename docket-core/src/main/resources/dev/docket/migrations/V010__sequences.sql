-- Docket schema, version 10: ordered processing per key ("sequences", JobOptions.sequenceKey).
-- Jobs with the same sequence key run one at a time, in enqueue (id) order. Only the head of a
-- sequence is ever 'ready' or 'scheduled'; the jobs behind it are 'waiting', a state outside the
-- claim index, so the claim statement is unchanged and stays a scan of that index.
--
-- Both transitions are row triggers whose WHEN clause is false for a job without a key, so jobs
-- that use no sequence pay no statement, no function call and no lock:
-- * sequence_enter (BEFORE INSERT) decides head or 'waiting' for every path that inserts a job:
--   the library's enqueues (one, many), the SQL function enqueue, cron, dead-letter replays.
-- * sequence_leave (AFTER DELETE) makes the next job of the key the head in the same transaction,
--   whatever took the head out of the jobs table: completion, death (retries used up, permanent
--   failure, the rescuer), cancellation, an administrator's DELETE. Statements that move the head
--   were not each given a CTE for this: a path forgotten (or added later) would strand a sequence.
-- Enqueue and leave serialize on a per-key transaction-level advisory lock, so a job enqueued while
-- the head completes is either seen by the completion (and promoted) or sees the head gone (and
-- becomes the head): no lost wake-up, never two heads.

-- The state CHECK gains 'waiting' (shared with job dependencies; whichever migration runs first,
-- the end state is the same).
ALTER TABLE {{schema}}.jobs DROP CONSTRAINT IF EXISTS jobs_state_check;
ALTER TABLE {{schema}}.jobs ADD CONSTRAINT jobs_state_check
    CHECK (state IN ('scheduled', 'ready', 'running', 'waiting'));

-- sequence_halt: when this job dies, its sequence stops until the dead job is replayed or
-- discarded. A constant default adds the column without rewriting the table.
ALTER TABLE {{schema}}.jobs ADD COLUMN sequence_key text,
                            ADD COLUMN sequence_halt boolean NOT NULL DEFAULT false;
ALTER TABLE {{schema}}.job_history ADD COLUMN sequence_key text,
                                   ADD COLUMN sequence_halt boolean NOT NULL DEFAULT false;
ALTER TABLE {{schema}}.dead_jobs ADD COLUMN sequence_key text,
                                 ADD COLUMN sequence_halt boolean NOT NULL DEFAULT false;

-- A sequence's jobs in order. Partial: jobs without a key are not in it, and no column a heartbeat,
-- claim or retry writes is in it, so it costs them nothing (heartbeats stay HOT updates).
CREATE INDEX jobs_sequence_idx ON {{schema}}.jobs (sequence_key, id) WHERE sequence_key IS NOT NULL;
-- The dead jobs that halt their sequence.
CREATE INDEX dead_jobs_sequence_halt_idx ON {{schema}}.dead_jobs (sequence_key)
    WHERE sequence_key IS NOT NULL AND sequence_halt;

-- The per-key lock that enqueue and leave share (64-bit hash: distinct keys rarely share a lock,
-- and when they do they only wait for each other).
CREATE FUNCTION {{schema}}.sequence_lock(sequence_key text) RETURNS void
LANGUAGE sql VOLATILE AS $fn$
    SELECT pg_advisory_xact_lock(hashtextextended('docket.sequence.{{schema_name}}.' || sequence_key, 0))
$fn$;

-- Makes the oldest waiting job of a key its head, unless the key has a head already (a replayed
-- dead job, say) or a dead job that halts it. The caller holds the key's lock.
CREATE FUNCTION {{schema}}.sequence_advance(seq_key text) RETURNS void
LANGUAGE plpgsql VOLATILE AS $fn$
DECLARE
    promoted record;
BEGIN
    LOOP
        IF EXISTS (SELECT 1 FROM {{schema}}.jobs j WHERE j.sequence_key = seq_key AND j.state <> 'waiting')
           OR EXISTS (SELECT 1 FROM {{schema}}.dead_jobs d
                       WHERE d.sequence_key = seq_key AND d.sequence_halt) THEN
            RETURN;
        END IF;
        UPDATE {{schema}}.jobs j
           SET state = CASE WHEN j.run_at <= now() THEN 'ready' ELSE 'scheduled' END
         WHERE j.id = (SELECT min(w.id) FROM {{schema}}.jobs w WHERE w.sequence_key = seq_key AND w.state = 'waiting')
           AND j.state = 'waiting'
        RETURNING j.queue, j.state INTO promoted;
        IF FOUND THEN
            IF promoted.state = 'ready' THEN
                PERFORM pg_notify('{{channel}}', promoted.queue);
            END IF;
            RETURN;
        END IF;
        -- Nothing waits, or the oldest waiting job was cancelled while this looked: look again.
        IF NOT EXISTS (SELECT 1 FROM {{schema}}.jobs w WHERE w.sequence_key = seq_key AND w.state = 'waiting') THEN
            RETURN;
        END IF;
    END LOOP;
END
$fn$;

-- Head or waiting, decided under the key's lock. A job waits while its key has a head, an older
-- waiting job, or a dead job that halts it (a replayed dead job is that job, so it becomes the head
-- again, before the jobs that waited behind it). A snapshot older than the lock could miss the head
-- another transaction just committed or removed, so only READ COMMITTED transactions (each
-- statement sees the latest commits) may enqueue a keyed job.
CREATE FUNCTION {{schema}}.sequence_enter() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'docket: a job with a sequence key must be enqueued in a READ COMMITTED transaction, not %',
            current_setting('transaction_isolation') USING ERRCODE = '25000';
    END IF;
    PERFORM {{schema}}.sequence_lock(NEW.sequence_key);
    IF EXISTS (SELECT 1 FROM {{schema}}.jobs j
                WHERE j.sequence_key = NEW.sequence_key AND j.id <> NEW.id
                  AND (j.state <> 'waiting' OR j.id < NEW.id))
       OR EXISTS (SELECT 1 FROM {{schema}}.dead_jobs d
                   WHERE d.sequence_key = NEW.sequence_key AND d.sequence_halt AND d.id <> NEW.id) THEN
        NEW.state := 'waiting';
    END IF;
    RETURN NEW;
END
$fn$;

CREATE TRIGGER jobs_sequence_enter BEFORE INSERT ON {{schema}}.jobs
    FOR EACH ROW WHEN (NEW.sequence_key IS NOT NULL) EXECUTE FUNCTION {{schema}}.sequence_enter();

-- A head left the jobs table, or a dead job that halted its key left the dead-letter table: the
-- key's next job may run. After-row triggers run at the end of the statement, so a head that died
-- is already in dead_jobs when this looks (and halts the key if it should), and a replayed dead job
-- is already back in jobs as the head (so nothing else moves).
CREATE FUNCTION {{schema}}.sequence_leave() RETURNS trigger
LANGUAGE plpgsql VOLATILE AS $fn$
BEGIN
    PERFORM {{schema}}.sequence_lock(OLD.sequence_key);
    PERFORM {{schema}}.sequence_advance(OLD.sequence_key);
    RETURN NULL;
END
$fn$;

-- A waiting job leaving (cancelled) changes no head.
CREATE TRIGGER jobs_sequence_leave AFTER DELETE ON {{schema}}.jobs
    FOR EACH ROW WHEN (OLD.sequence_key IS NOT NULL AND OLD.state <> 'waiting')
    EXECUTE FUNCTION {{schema}}.sequence_leave();

-- Discarded, pruned by retention, or replayed.
CREATE TRIGGER dead_jobs_sequence_release AFTER DELETE ON {{schema}}.dead_jobs
    FOR EACH ROW WHEN (OLD.sequence_key IS NOT NULL AND OLD.sequence_halt)
    EXECUTE FUNCTION {{schema}}.sequence_leave();
