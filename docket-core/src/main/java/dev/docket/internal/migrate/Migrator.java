package dev.docket.internal.migrate;

import dev.docket.internal.db.SchemaName;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the versioned SQL migrations shipped in the jar ({@code dev/docket/migrations/V###__name.sql}).
 * Each runs in its own transaction under a transaction-level advisory lock per schema, so nodes that
 * start together apply each migration once and the others wait, then find nothing to do.
 * {@code lock_timeout} is set after the advisory lock is held: waiting for another node is fine,
 * waiting behind application traffic for a table lock is not.
 *
 * @param dataSource  where the schema lives
 * @param schema      the schema to migrate
 * @param lockTimeout {@code lock_timeout} for each migration once it holds the advisory lock
 */
public record Migrator(DataSource dataSource, SchemaName schema, Duration lockTimeout) {

    private static final Logger log = LoggerFactory.getLogger(Migrator.class);

    /** The migrations this build ships, in order. */
    static final List<String> MIGRATIONS = List.of("V001__jobs.sql", "V002__leaders.sql", "V003__queue_control.sql",
            "V004__cron.sql", "V005__unique_periods.sql", "V006__dead_job_replays.sql", "V007__text_rules.sql",
            "V008__workers.sql", "V009__dead_job_triage.sql", "V010__sequences.sql", "V011__rate_limits.sql",
            "V012__workflows.sql", "V013__no_vacuum_truncate.sql", "V014__fleet_metrics.sql",
            "V015__durable_waits.sql", "V016__runtime_schedules.sql", "V017__debounce.sql");

    private static final String LOCK = "SELECT pg_advisory_xact_lock(hashtext(?))";
    private static final String VERSION_TABLE = """
            CREATE TABLE IF NOT EXISTS {{schema}}.schema_migrations (
                version    integer     PRIMARY KEY,
                name       text        NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )""";
    private static final String RECORD = "INSERT INTO {{schema}}.schema_migrations (version, name) VALUES (?, ?)";

    /** The schema version this build of Docket works with. */
    public static int supportedVersion() {
        return MIGRATIONS.size();
    }

    /** Brings the schema to {@link #supportedVersion()}; returns how many migrations it applied. */
    public int migrate() throws SQLException {
        int applied = 0;
        for (int i = 0; i < MIGRATIONS.size(); i++) {
            if (applyIfMissing(i + 1, MIGRATIONS.get(i))) {
                applied++;
            }
        }
        return applied;
    }

    private boolean applyIfMissing(int version, String file) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                // Waiting for another node's migration is expected, whatever lock_timeout the role has.
                st.execute("SET LOCAL lock_timeout = 0");
                try (PreparedStatement lock = c.prepareStatement(LOCK)) {
                    lock.setString(1, "docket.migrate." + schema.name());
                    lock.execute();
                }
                st.execute("SET LOCAL lock_timeout = '" + lockTimeout.toMillis() + "ms'");
                st.execute("CREATE SCHEMA IF NOT EXISTS " + schema.quoted());
                st.execute(schema.bind(VERSION_TABLE));
                int current = currentVersion(c);
                if (current > supportedVersion()) {
                    throw new SQLException("schema " + schema.name() + " is at version " + current
                            + ", newer than this Docket supports (" + supportedVersion() + "): upgrade Docket");
                }
                if (current >= version) {
                    c.commit();
                    return false;
                }
                st.execute(script(file));
                try (PreparedStatement record = c.prepareStatement(schema.bind(RECORD))) {
                    record.setInt(1, version);
                    record.setString(2, file);
                    record.execute();
                }
                c.commit();
                log.info("docket: applied migration {} to schema {}", file, schema.name());
                return true;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private int currentVersion(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(schema.bind(
                "SELECT coalesce(max(version), 0) FROM {{schema}}.schema_migrations"));
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Every migration as one SQL script, for teams that apply schema changes with their own tool. */
    public String sql() {
        StringBuilder out = new StringBuilder();
        out.append("-- Docket schema ").append(schema.name()).append(", version ").append(supportedVersion())
                .append(".\n-- Apply in one transaction; it records itself in ")
                .append(schema.name()).append(".schema_migrations.\n\n");
        out.append("CREATE SCHEMA IF NOT EXISTS ").append(schema.quoted()).append(";\n");
        out.append(schema.bind(VERSION_TABLE)).append(";\n\n");
        List<String> records = new ArrayList<>();
        for (int i = 0; i < MIGRATIONS.size(); i++) {
            out.append(script(MIGRATIONS.get(i))).append('\n');
            records.add("INSERT INTO " + schema.quoted() + ".schema_migrations (version, name) VALUES ("
                    + (i + 1) + ", '" + MIGRATIONS.get(i) + "');");
        }
        records.forEach(r -> out.append(r).append('\n'));
        return out.toString();
    }

    private String script(String file) {
        String path = "/dev/docket/migrations/" + file;
        try (InputStream in = Migrator.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("migration " + path + " is missing from the jar");
            }
            return schema.bind(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
