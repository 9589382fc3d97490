package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.DocketRouter;
import dev.docket.PayloadKeyProvider;
import dev.docket.internal.db.DatabaseUrl;
import dev.docket.internal.rules.JobOptionRules;
import dev.docket.internal.rules.TextRules;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code --database-url} and {@code --schema}, shared by every command that talks to the database. */
final class DatabaseOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    @Option(names = "--database-url", paramLabel = "URL", order = 100,
            description = "PostgreSQL to use: postgres://user:pass@host:5432/db, postgresql://... or "
                    + "jdbc:postgresql://... (user and password may also be query parameters). "
                    + "Default: the DOCKET_DATABASE_URL environment variable.")
    String url;

    @Option(names = "--schema", paramLabel = "NAME", defaultValue = "docket", order = 101,
            description = "The schema holding Docket's tables (default: ${DEFAULT-VALUE}).")
    String schema;

    @Option(names = "--database", paramLabel = "NAME=URL", order = 102,
            description = "Another database whose queues this command covers too (repeatable), by the name it is shown "
                    + "under (letters, digits, '_', '-'); the --database-url one stays the default, named 'default'. "
                    + "Without --database-url, the first --database is the default.")
    List<String> more = new ArrayList<>();

    /** The name of the database {@code --database-url} gives, when other databases are named. */
    static final String DEFAULT_NAME = "default";

    /**
     * Every database this command covers by name, the default first: {@code --database-url} (or
     * {@code DOCKET_DATABASE_URL}) as {@value #DEFAULT_NAME}, then each {@code --database NAME=URL}.
     *
     * @throws CommandFailure (a usage error) for a malformed, repeated or unusable name or URL; the
     *                        message never contains a password
     */
    Map<String, DatabaseUrl> namedUrls() {
        Map<String, DatabaseUrl> urls = new LinkedHashMap<>();
        if (url != null || more.isEmpty() || root().env("DOCKET_DATABASE_URL") != null) {
            urls.put(DEFAULT_NAME, databaseUrl());
        }
        for (String given : more) {
            int eq = given.indexOf('=');
            String name = eq < 0 ? "" : given.substring(0, eq);
            if (!DocketRouter.DATABASE_NAME.matcher(name).matches()) {
                throw CommandFailure.usage("--database takes NAME=URL with a name of 1 to 63 letters, digits, '_' or "
                        + "'-', was " + TextRules.describe(eq < 0 ? given.substring(0, Math.min(given.length(), 20)) : name));
            }
            if (urls.containsKey(name)) {
                throw CommandFailure.usage("--database " + name + " is given twice"
                        + (name.equals(DEFAULT_NAME) ? " (the --database-url one is named 'default')" : ""));
            }
            try {
                urls.put(name, DatabaseUrl.parse(given.substring(eq + 1)));
            } catch (IllegalArgumentException e) {
                throw CommandFailure.usage("--database " + name + " is not a usable PostgreSQL URL: " + e.getMessage()
                        + " (expected postgres://user:pass@host:5432/db or jdbc:postgresql://host:5432/db)");
            }
        }
        return urls;
    }

    /** Whether several databases are named (then findings, jobs and metrics say which database). */
    boolean several() {
        return !more.isEmpty();
    }

    /**
     * Opens every named database ({@link #namedUrls()}), the default first, each a pool of
     * {@code poolSize}; closes those already open when one fails.
     */
    Map<String, Database> openAll(int poolSize, Consumer<Docket.Builder> settings) {
        return openAll(poolSize, (name, b) -> settings.accept(b));
    }

    /** {@link #openAll(int, Consumer)} with settings per database ({@code settings} gets each one's name). */
    Map<String, Database> openAll(int poolSize, BiConsumer<String, Docket.Builder> settings) {
        Map<String, Database> open = new LinkedHashMap<>();
        Consumer<Docket.Builder> encryption = payloadEncryption();
        try {
            namedUrls().forEach((name, u) -> open.put(name, Database.open(u, schema, poolSize,
                    "docket-" + mixee.name() + "-" + name, b -> {
                        encryption.accept(b);
                        settings.accept(name, b);
                    })));
            return open;
        } catch (RuntimeException e) {
            open.values().forEach(Database::close);
            throw e;
        }
    }

    /**
     * The database URL from the option, else from {@code DOCKET_DATABASE_URL}.
     *
     * @throws CommandFailure (a usage error) when there is none, or saying what a valid one looks like;
     *                        the message never contains the password
     */
    DatabaseUrl databaseUrl() {
        String given = url;
        if (given == null) {
            given = root().env("DOCKET_DATABASE_URL");
        }
        if (given == null || given.isBlank()) {
            throw CommandFailure.usage("no database given: pass --database-url postgres://user:pass@host:5432/db "
                    + "or set DOCKET_DATABASE_URL");
        }
        try {
            return DatabaseUrl.parse(given);
        } catch (IllegalArgumentException e) {
            throw CommandFailure.usage("--database-url is not a usable PostgreSQL URL: " + e.getMessage()
                    + " (expected postgres://user:pass@host:5432/db or jdbc:postgresql://host:5432/db)");
        }
    }

    /** Connects (a pool of {@code poolSize}) and builds a Docket on the schema. */
    Database open(int poolSize, Consumer<Docket.Builder> settings) {
        if (several()) {
            throw CommandFailure.usage("--database NAME=URL is taken by docket serve and docket doctor only; a job id "
                    + "belongs to one database: give this command that database's --database-url");
        }
        DatabaseUrl parsed = databaseUrl();
        Consumer<Docket.Builder> encryption = payloadEncryption();
        return Database.open(parsed, schema, poolSize, "docket-" + mixee.name(), encryption.andThen(settings));
    }

    /**
     * The keys of payloads encrypted at rest, from {@code DOCKET_PAYLOAD_KEYS} ({@code kid:base64key,...}, the
     * newest last or marked {@code *}), and the kinds this process encrypts by name, from
     * {@code DOCKET_ENCRYPTED_KINDS} ({@code kind,kind}): read before anything connects, so that a malformed
     * configuration stops the command at once. Neither set: nothing is encrypted or decrypted here.
     *
     * @throws CommandFailure (a usage error) saying which entry is wrong, never with key text
     */
    Consumer<Docket.Builder> payloadEncryption() {
        String keys = root().env("DOCKET_PAYLOAD_KEYS");
        String kinds = root().env("DOCKET_ENCRYPTED_KINDS");
        PayloadKeyProvider provider = null;
        if (keys != null && !keys.isBlank()) {
            try {
                provider = PayloadKeyProvider.parse(keys);
            } catch (IllegalArgumentException e) {
                throw CommandFailure.usage("DOCKET_PAYLOAD_KEYS: " + e.getMessage());
            }
        }
        List<String> encrypted = new ArrayList<>();
        if (kinds != null && !kinds.isBlank()) {
            for (String kind : kinds.split(",", -1)) {
                String name = kind.strip();
                try {
                    JobOptionRules.checkKind(name);
                } catch (IllegalArgumentException e) {
                    throw CommandFailure.usage("DOCKET_ENCRYPTED_KINDS: " + e.getMessage());
                }
                encrypted.add(name);
            }
        }
        PayloadKeyProvider found = provider;
        return b -> {
            if (found != null) {
                b.payloadKeys(found);
            }
            encrypted.forEach(b::encryptedKind);
        };
    }

    /** Connects and checks that the schema is migrated: what the operational commands need. */
    Database openMigrated(int poolSize) {
        Database db = open(poolSize, b -> { });
        try {
            db.requireCurrentSchema();
            return db;
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    DocketCommand root() {
        return (DocketCommand) mixee.root().userObject();
    }
}
