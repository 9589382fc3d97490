INSERT INTO raw_jobs (kind, payload) SELECT 'noop', jsonb_build_object('seq', s) FROM unnest(array(SELECT generate_series(1, 1000)::bigint)) s;
