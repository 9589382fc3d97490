package dev.docket.server.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.internal.db.DatabaseUrl;
import java.util.function.Consumer;

/**
 * A connection pool and a {@link Docket} on it, opened by a command and closed when it ends.
 * Opening connects once at once, so a wrong address or password fails here, in one line.
 *
 * @param pool   the connection pool, closed with it
 * @param docket the Docket on the pool, closed with it
 * @param url    where the pool connects
 */
record Database(HikariDataSource pool, Docket docket, DatabaseUrl url) implements AutoCloseable {

    /** How long a connection attempt may take before the command gives up. */
    static final int CONNECT_TIMEOUT_SECONDS = 5;

    /**
     * Opens a pool of {@code poolSize} connections and a Docket on {@code schema}, configured further
     * by {@code settings}.
     *
     * @throws CommandFailure when the database cannot be reached or refuses the login
     */
    static Database open(DatabaseUrl url, String schema, int poolSize, String name, Consumer<Docket.Builder> settings) {
        Docket.Builder builder = Docket.builder(new UnopenedDataSource()).schema(schema);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url.jdbcUrl());
        if (url.user() != null) {
            config.setUsername(url.user());
        }
        if (url.password() != null) {
            config.setPassword(url.password());
        }
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(Math.min(2, poolSize));
        config.setConnectionTimeout(CONNECT_TIMEOUT_SECONDS * 1000L + 1000);
        config.setInitializationFailTimeout(1);
        config.setPoolName(name);
        config.addDataSourceProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        config.addDataSourceProperty("loginTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        config.addDataSourceProperty("ApplicationName", name);
        HikariDataSource pool;
        try {
            pool = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw CommandFailure.failed("cannot connect to the database at " + url.display() + ": "
                    + ErrorMessages.connectionReason(e));
        }
        try {
            builder = Docket.builder(pool).schema(schema);
            settings.accept(builder);
            return new Database(pool, builder.build(), url);
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
    }

    /** Fails with what to run unless the schema is at the version this build works with. */
    void requireCurrentSchema() {
        int found = docket.schemaVersion();
        int wanted = Docket.supportedSchemaVersion();
        if (found == 0) {
            throw CommandFailure.failed("schema " + docket.schema() + " has no Docket tables in " + url.display()
                    + ": run `docket migrate` first");
        }
        if (found < wanted) {
            throw CommandFailure.failed("schema " + docket.schema() + " is at version " + found + ", this docket needs "
                    + wanted + ": run `docket migrate`");
        }
        if (found > wanted) {
            throw CommandFailure.failed("schema " + docket.schema() + " is at version " + found
                    + ", newer than this docket supports (" + wanted + "): upgrade docket");
        }
    }

    @Override
    public void close() {
        try {
            docket.close();
        } finally {
            pool.close();
        }
    }
}
