INSERT INTO docket.jobs AS j (queue, kind, payload, payload_version, priority, state, run_at, max_attempts, tenant, metadata, sequence_halt)
SELECT 'default', 'noop', u.payload::jsonb, 1, 0, CASE WHEN r.run_at <= now() THEN 'ready' ELSE 'scheduled' END, r.run_at, 25, NULL, '{}'::jsonb, false
  FROM (SELECT coalesce(timestamptz 'epoch' + NULL::bigint * interval '1 microsecond', now() + coalesce(NULL::bigint, 0) * interval '1 millisecond') AS run_at) r
 CROSS JOIN unnest(array(SELECT '{"seq":' || i || '}' FROM generate_series(1, 1000) i)) AS u(payload)
RETURNING j.id, j.state = 'ready' AS ready;
