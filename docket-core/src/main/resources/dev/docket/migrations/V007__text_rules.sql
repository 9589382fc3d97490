-- Docket schema, version 7: the SQL function enqueue applies the text rules the library, the REST
-- API and the CLI apply (dev.docket.internal.text.TextRules): a kind is printable characters only,
-- run_at lies from 1970-01-01 to 9999-12-31 (refused, not moved into range), a unique key and a
-- tenant are 1 to 512 characters, metadata is an object. Nothing else of the function changes.
-- (PostgreSQL text is valid UTF-8 without NUL by construction, so the rule for other text holds.)

-- Whether a name is printable: no control (Cc), format (Cf: zero-width characters, bidirectional
-- overrides, the byte-order mark), line or paragraph separator (Zl, Zp), space other than U+0020
-- (Zs), and, on PostgreSQL 17 and later (which know Unicode's assignments), no unassigned code
-- point. The class below lists Cc, Cf, Zl, Zp and Zs minus U+0020 as of Unicode 16.0 (NUL aside:
-- text cannot hold it); a test checks it against the JDK's tables.
CREATE FUNCTION {{schema}}.printable_name(candidate text) RETURNS boolean
LANGUAGE plpgsql STABLE AS $fn$
BEGIN
    IF candidate ~ E'[\u0001-\u001F\u007F-\u00A0\u00AD\u0600-\u0605\u061C\u06DD\u070F\u0890-\u0891\u08E2\u1680\u180E\u2000-\u200F\u2028-\u202F\u205F-\u2064\u2066-\u206F\u3000\uFEFF\uFFF9-\uFFFB\U000110BD\U000110CD\U00013430-\U0001343F\U0001BCA0-\U0001BCA3\U0001D173-\U0001D17A\U000E0001\U000E0020-\U000E007F]' THEN
        RETURN false;
    END IF;
    -- unicode_assigned exists from PostgreSQL 17 on; PL/pgSQL resolves it only when this line runs.
    IF current_setting('server_version_num')::integer >= 170000 THEN
        RETURN unicode_assigned(candidate);
    END IF;
    RETURN true;
END
$fn$;

CREATE OR REPLACE FUNCTION {{schema}}.enqueue(
    kind            text,
    payload         jsonb,
    queue           text        DEFAULT 'default',
    priority        integer     DEFAULT 0,
    run_at          timestamptz DEFAULT NULL,
    max_attempts    integer     DEFAULT 20,
    unique_key      text        DEFAULT NULL,
    tenant          text        DEFAULT NULL,
    payload_version integer     DEFAULT 1,
    metadata        jsonb       DEFAULT '{}'
) RETURNS TABLE (id bigint, inserted boolean)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
    new_id bigint;
BEGIN
    IF kind IS NULL OR length(kind) = 0 OR length(kind) > 255 OR btrim(kind) = '' THEN
        RAISE EXCEPTION 'docket.enqueue: kind must be 1 to 255 characters' USING ERRCODE = '22023';
    END IF;
    IF NOT {{schema}}.printable_name(kind) THEN
        RAISE EXCEPTION 'docket.enqueue: kind must be printable characters only (no control, invisible formatting, bidirectional override, unassigned, or separator characters other than the space)'
            USING ERRCODE = '22023';
    END IF;
    IF queue IS NULL OR queue !~ '^[A-Za-z0-9_.:-]{1,128}$' THEN
        RAISE EXCEPTION 'docket.enqueue: queue must be 1 to 128 characters of A-Z a-z 0-9 _ . : -' USING ERRCODE = '22023';
    END IF;
    IF payload IS NULL THEN
        RAISE EXCEPTION 'docket.enqueue: payload must not be null (use ''{}'')' USING ERRCODE = '22023';
    END IF;
    IF priority IS NULL OR priority < -32768 OR priority > 32767 THEN
        RAISE EXCEPTION 'docket.enqueue: priority must be between -32768 and 32767' USING ERRCODE = '22023';
    END IF;
    IF run_at < '1970-01-01 00:00:00+00' OR run_at > '9999-12-31 23:59:59+00' THEN
        RAISE EXCEPTION 'docket.enqueue: run_at must be from 1970-01-01 00:00:00+00 to 9999-12-31 23:59:59+00'
            USING ERRCODE = '22023';
    END IF;
    IF max_attempts IS NULL OR max_attempts < 1 THEN
        RAISE EXCEPTION 'docket.enqueue: max_attempts must be >= 1' USING ERRCODE = '22023';
    END IF;
    IF length(unique_key) NOT BETWEEN 1 AND 512 THEN
        RAISE EXCEPTION 'docket.enqueue: unique_key must be 1 to 512 characters' USING ERRCODE = '22023';
    END IF;
    IF length(tenant) NOT BETWEEN 1 AND 512 THEN
        RAISE EXCEPTION 'docket.enqueue: tenant must be 1 to 512 characters' USING ERRCODE = '22023';
    END IF;
    IF jsonb_typeof(metadata) <> 'object' THEN
        RAISE EXCEPTION 'docket.enqueue: metadata must be a JSON object' USING ERRCODE = '22023';
    END IF;
    LOOP
        INSERT INTO {{schema}}.jobs AS j (queue, kind, payload, payload_version, priority, state, run_at,
                                          max_attempts, tenant, unique_key, metadata)
        VALUES (enqueue.queue, enqueue.kind, enqueue.payload, enqueue.payload_version, enqueue.priority,
                CASE WHEN enqueue.run_at IS NULL OR enqueue.run_at <= now() THEN 'ready' ELSE 'scheduled' END,
                coalesce(enqueue.run_at, now()), enqueue.max_attempts, enqueue.tenant, enqueue.unique_key,
                coalesce(enqueue.metadata, '{}'))
        ON CONFLICT (unique_key) WHERE unique_key IS NOT NULL DO NOTHING
        RETURNING j.id INTO new_id;
        IF new_id IS NOT NULL THEN
            PERFORM pg_notify('{{channel}}', enqueue.queue);
            RETURN QUERY SELECT new_id, true;
            RETURN;
        END IF;
        SELECT j.id INTO new_id FROM {{schema}}.jobs j WHERE j.unique_key = enqueue.unique_key;
        IF new_id IS NOT NULL THEN
            RETURN QUERY SELECT new_id, false;
            RETURN;
        END IF;
        -- The conflicting job finished between the two statements: its key is free again.
    END LOOP;
END
$fn$;
