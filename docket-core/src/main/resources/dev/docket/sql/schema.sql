-- The schema as a whole: its migration version, and the database clock.

-- name: schemaVersionTable
-- Cannot fail when the table is missing, so it is safe inside a caller's transaction.
SELECT to_regclass('{{schema}}.schema_migrations')::text AS version_table

-- name: schemaVersion
SELECT coalesce(max(version), 0) AS version FROM {{schema}}.schema_migrations

-- name: schemaNow
-- The database clock, the only clock Docket compares times with.
SELECT now() AS now
