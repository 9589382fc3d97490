INSERT INTO raw_jobs (kind, payload) SELECT 'noop', u.payload::jsonb FROM unnest(array(SELECT '{"seq":' || i || '}' FROM generate_series(1, 1000) i)) AS u(payload);
