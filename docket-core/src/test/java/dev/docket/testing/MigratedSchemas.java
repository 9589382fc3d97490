package dev.docket.testing;

import dev.docket.internal.db.SchemaName;
import dev.docket.internal.migrate.Migrator;
import dev.docket.test.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.sql.DataSource;

/**
 * Migrated schemas for the tests, each migrated once and used by one test after another: applying the
 * migrations takes a few hundred milliseconds of PostgreSQL's time, emptying a schema a few tens.
 *
 * <p>A test {@link #take() takes} a schema for itself and {@link #giveBack gives it back} when it is
 * done. A schema goes back to the others only as the migrations left it: the same migrations recorded,
 * the same tables (the daily history partitions too), columns, indexes, triggers (and whether they are
 * enabled), functions, table settings and privileges as a newly migrated schema, and with no worker
 * registered and no leader whose lease still runs (something the test started may still be running).
 * Then every table that has pages (rows, or dead rows only) is truncated, so that its files are as new
 * as a migrated table's, and its sequences start again. Any other schema is dropped.
 */
public final class MigratedSchemas {

    /**
     * Everything a test could change in a schema's definition, one line per object, with the schema's
     * name taken out (function bodies, index and trigger definitions name it), so that any two schemas
     * the migrations made read the same. Null when the schema does not exist.
     */
    private static final String DEFINITION = """
            WITH s AS (SELECT oid, nspname FROM pg_namespace WHERE nspname = ?)
            SELECT string_agg(replace(item, s.nspname, '{s}'), E'\\n' ORDER BY item)
              FROM s, LATERAL (
                SELECT concat_ws(' ', 'schema', n.nspowner::regrole, n.nspacl) AS item
                  FROM pg_namespace n WHERE n.oid = s.oid
                UNION ALL
                SELECT concat_ws(' ', 'relation', c.relname, c.relkind, c.relpersistence, c.relowner::regrole,
                                 c.reloptions, c.relacl, c.relrowsecurity, c.relforcerowsecurity,
                                 pg_get_expr(c.relpartbound, c.oid))
                  FROM pg_class c WHERE c.relnamespace = s.oid
                UNION ALL
                SELECT concat_ws(' ', 'column', c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                                 a.attnotnull, a.attidentity, a.attgenerated, pg_get_expr(d.adbin, d.adrelid))
                  FROM pg_attribute a
                  JOIN pg_class c ON c.oid = a.attrelid
                  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                 WHERE c.relnamespace = s.oid AND a.attnum > 0 AND NOT a.attisdropped
                UNION ALL
                SELECT concat_ws(' ', 'index', pg_get_indexdef(i.indexrelid), i.indisclustered, i.indisvalid)
                  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = s.oid
                UNION ALL
                SELECT concat_ws(' ', 'constraint', c.conname, pg_get_constraintdef(c.oid))
                  FROM pg_constraint c WHERE c.connamespace = s.oid
                UNION ALL
                -- Internal triggers (foreign keys) are named by OID, so only their table and state count.
                SELECT concat_ws(' ', 'trigger', t.tgenabled,
                                 CASE WHEN t.tgisinternal THEN c.relname ELSE pg_get_triggerdef(t.oid) END)
                  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = s.oid
                UNION ALL
                SELECT concat_ws(' ', 'policy', c.relname, p.polname, p.polcmd, pg_get_expr(p.polqual, p.polrelid))
                  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid WHERE c.relnamespace = s.oid
                UNION ALL
                SELECT concat_ws(' ', 'function', p.proname, pg_get_function_identity_arguments(p.oid),
                                 p.proowner::regrole, p.proacl, p.proconfig, p.prosrc)
                  FROM pg_proc p WHERE p.pronamespace = s.oid
                UNION ALL
                SELECT concat_ws(' ', 'type', t.typname, t.typtype,
                                 (SELECT string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
                                    FROM pg_enum e WHERE e.enumtypid = t.oid))
                  FROM pg_type t WHERE t.typnamespace = s.oid
                UNION ALL
                SELECT concat_ws(' ', 'sequence', c.relname, q.seqstart, q.seqincrement, q.seqmin, q.seqmax, q.seqcycle)
                  FROM pg_sequence q JOIN pg_class c ON c.oid = q.seqrelid WHERE c.relnamespace = s.oid
              ) items
             GROUP BY s.nspname""";

    private static final String APPLIED_MIGRATIONS = "SELECT version || ' ' || name FROM %s.schema_migrations ORDER BY version";

    /**
     * The tables that have pages: rows, or only dead ones (whose index entries a later test's plans and
     * buffer counts would meet). Truncating them gives them the empty files a new table has.
     */
    private static final String USED_TABLES = """
            SELECT format('%I.%I', n.nspname, c.relname)
              FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = ? AND c.relkind = 'r' AND c.relname <> 'schema_migrations'
               AND pg_relation_size(c.oid) > 0""";

    private static final String STILL_IN_USE = "SELECT (SELECT count(*) FROM %1$s.workers)"
            + " + (SELECT count(*) FROM %1$s.leaders WHERE expires_at > now())";

    private static final String RESTART_SEQUENCES = """
            SELECT count(setval(format('%I.%I', schemaname, sequencename), start_value, false))
              FROM pg_sequences WHERE schemaname = ? AND last_value IS NOT NULL""";

    private static MigratedSchemas instance;

    private final DataSource dataSource;
    private final Queue<String> idle = new ConcurrentLinkedQueue<>();
    private volatile List<String> appliedMigrations;
    private volatile String migratedDefinition;

    private MigratedSchemas(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /**
     * The schemas of this JVM's tests, in the {@link TestPostgres} database. On a server named by
     * {@code DOCKET_TEST_DATABASE_URL}, which outlives the tests, those left at exit are dropped.
     */
    public static synchronized MigratedSchemas get() {
        if (instance == null) {
            instance = new MigratedSchemas(TestPostgres.get().dataSource());
            String url = System.getenv(TestPostgres.URL_VARIABLE);
            if (url != null && !url.isBlank()) {
                Runtime.getRuntime().addShutdownHook(new Thread(instance::dropIdle, "docket-test-schemas-drop"));
            }
        }
        return instance;
    }

    /** A schema name no other test uses, of a schema that does not exist yet. */
    public static String newName() {
        return "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    /** A migrated schema for one test alone: one given back by an earlier test, or a new one. */
    public String take() {
        String schema = idle.poll();
        if (schema != null) {
            return schema;
        }
        schema = newName();
        try {
            new Migrator(dataSource, new SchemaName(schema), Duration.ofSeconds(30)).migrate();
            if (migratedDefinition == null) {
                try (Connection c = dataSource.getConnection()) {
                    appliedMigrations = strings(c, APPLIED_MIGRATIONS.formatted(schema));
                    migratedDefinition = definition(c, schema);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("migrating test schema " + schema + ": " + e.getMessage(), e);
        }
        return schema;
    }

    /**
     * Takes back the schema of a test that is done with it (whether it was taken or made by the test):
     * emptied, for the next test, when it is as the migrations left it, else dropped. Nothing happens
     * for a schema that does not exist.
     */
    public void giveBack(String schema) {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            if (asMigrated(c, schema)) {
                empty(c, schema);
                idle.add(schema);
                return;
            }
            st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            throw new IllegalStateException("giving back test schema " + schema + ": " + e.getMessage(), e);
        }
    }

    private void dropIdle() {
        for (String schema = idle.poll(); schema != null; schema = idle.poll()) {
            try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            } catch (SQLException e) {
                System.err.println("dropping test schema " + schema + ": " + e.getMessage());
            }
        }
    }

    private boolean asMigrated(Connection c, String schema) throws SQLException {
        String migrated = migratedDefinition;
        if (migrated == null || !exists(c, schema)) {
            return false;
        }
        if (!migrated.equals(definition(c, schema))
                || !appliedMigrations.equals(strings(c, APPLIED_MIGRATIONS.formatted(schema)))) {
            return false;
        }
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(STILL_IN_USE.formatted(schema))) {
            rs.next();
            return rs.getLong(1) == 0;
        }
    }

    private void empty(Connection c, String schema) throws SQLException {
        List<String> used = strings(c, USED_TABLES, schema);
        if (!used.isEmpty()) {
            try (Statement st = c.createStatement()) {
                st.execute("TRUNCATE " + String.join(", ", used) + " CASCADE");
            }
        }
        strings(c, RESTART_SEQUENCES, schema);
    }

    private static boolean exists(Connection c, String schema) throws SQLException {
        return !strings(c, "SELECT nspname FROM pg_namespace WHERE nspname = ?", schema).isEmpty();
    }

    private static String definition(Connection c, String schema) throws SQLException {
        List<String> rows = strings(c, DEFINITION, schema);
        return rows.isEmpty() ? null : rows.getFirst();
    }

    private static List<String> strings(Connection c, String sql, String... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            List<String> values = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    values.add(rs.getString(1));
                }
            }
            return values;
        }
    }
}
