-- The schema as a whole: its migration version, and the database clock.

-- name: schemaVersionTable
-- Cannot fail when the table is missing, so it is safe inside a caller's transaction.
SELECT to_regclass('{{schema}}.schema_migrations')::text AS version_table

-- name: schemaVersion
SELECT coalesce(max(version), 0) AS version FROM {{schema}}.schema_migrations

-- name: schemaNow
-- The database clock, the only clock Docket compares times with.
SELECT now() AS now

-- name: schemaDatabaseIdentity
-- Which PostgreSQL database a connection is on, for the router's check that a caller's transaction
-- belongs to the database a job is routed to. The cluster's system identifier survives a failover to
-- a physical standby and differs between two initdb'd servers; the database's oid tells two databases
-- of one server apart. pg_control_system() may be revoked from the role: the CASE reads it only when
-- allowed, so the statement cannot fail and is safe inside the caller's transaction.
SELECT current_database() AS database_name,
       (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()) AS database_oid,
       CASE WHEN has_function_privilege('pg_catalog.pg_control_system()', 'EXECUTE')
            THEN (SELECT system_identifier FROM pg_catalog.pg_control_system())::text END AS system_identifier,
       coalesce(host(inet_server_addr()), 'local') || ':' || current_setting('port') AS server_address
