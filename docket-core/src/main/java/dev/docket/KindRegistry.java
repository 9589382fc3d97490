package dev.docket;

import dev.docket.internal.crypto.PayloadCrypto;
import dev.docket.internal.db.InsertRow;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.observe.JobObserver;
import dev.docket.internal.rules.JobOptionRules;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * What a {@link Docket} knows about kinds, and the one place a job's row is made from an enqueue call:
 * the job's own options, then its kind's defaults, then the kind's (or the default) retry policy and
 * payload version. String kinds get the settings of the kind of that name declared or configured on
 * the {@link Docket.Builder}; a {@link JobKind} brings its own.
 */
final class KindRegistry {

    private final PayloadCodec codec;
    private final RetryPolicy defaultRetryPolicy;
    /** Adds the caller's trace context to each row's metadata (when OpenTelemetry is there). */
    private final JobObserver observer;
    /** Each declared JobKind, and a JobKind for each kind configured piece by piece. */
    private final Map<String, JobKind<?>> byName;
    private final Map<String, JobKind<?>> declared;
    private final PayloadCrypto crypto;
    /** The names of the kinds this Docket encrypts, so that a JobKind of such a name used directly is encrypted too. */
    private final Set<String> encryptedNames;

    private KindRegistry(PayloadCodec codec, RetryPolicy defaultRetryPolicy, Map<String, JobKind<?>> byName,
                  Map<String, JobKind<?>> declared, JobObserver observer, PayloadCrypto crypto) {
        this.codec = codec;
        this.crypto = crypto;
        Set<String> encrypted = new HashSet<>();
        byName.forEach((name, kind) -> {
            if (kind.encrypted()) {
                encrypted.add(name);
            }
        });
        this.encryptedNames = Set.copyOf(encrypted);
        this.observer = observer;
        this.defaultRetryPolicy = defaultRetryPolicy;
        this.byName = byName;
        this.declared = declared;
    }

    /** The retry policy of the string kind {@code kind}; see {@link Docket#retryPolicy(String)}. */
    RetryPolicy retryPolicy(String kind) {
        JobKind<?> k = byName.get(kind);
        return k != null && k.retryPolicy() != null ? k.retryPolicy() : defaultRetryPolicy;
    }

    /**
     * The retry policy of a {@link JobKind} used directly: its own, else the one this Docket has for its
     * name ({@link Docket.Builder#retryPolicy(String, RetryPolicy)}), else the default.
     */
    RetryPolicy retryPolicy(JobKind<?> kind) {
        return kind.retryPolicy() != null ? kind.retryPolicy() : retryPolicy(kind.name());
    }

    /** The kind declared on the builder under {@code name}, or null. */
    JobKind<?> declared(String name) {
        return declared.get(name);
    }

    <T> InsertRow row(JobKind<T> kind, T payload, JobOptions options) {
        return row(Objects.requireNonNull(kind, "kind").name(), settingsOf(kind), payload, options);
    }

    <T> List<InsertRow> rows(JobKind<T> kind, Collection<? extends T> payloads) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(payloads, "payloads");
        JobKind<?> settings = settingsOf(kind);
        List<InsertRow> rows = new ArrayList<>(payloads.size());
        for (T payload : payloads) {
            rows.add(row(kind.name(), settings, payload, JobOptions.defaults()));
        }
        return rows;
    }

    /** Whose settings jobs of {@code kind} get: its own, or for a kind {@link JobKind#named by name} this Docket's for the name (or none). */
    private JobKind<?> settingsOf(JobKind<?> kind) {
        return kind.byName() ? byName.get(kind.name()) : kind;
    }

    List<InsertRow> rows(List<NewJob> jobs) {
        Objects.requireNonNull(jobs, "jobs");
        List<InsertRow> rows = new ArrayList<>(jobs.size());
        for (NewJob job : jobs) {
            Objects.requireNonNull(job, "jobs must not contain null");
            rows.add(row(job));
        }
        return rows;
    }

    /** A string-kind job: the settings of its kind, if the builder declared or configured it. */
    InsertRow row(NewJob job) {
        JobOptionRules.checkKind(job.kind());
        return row(job.kind(), byName.get(job.kind()), job.payload(), job.options());
    }

    /** Whether jobs of this kind (given as its settings, null for none) are encrypted at rest. */
    boolean encrypted(String kindName, JobKind<?> kind) {
        return kind != null && kind.encrypted() || !encryptedNames.isEmpty() && encryptedNames.contains(kindName);
    }

    /** Whether this Docket encrypts jobs of the string kind {@code kind}. */
    boolean encrypted(String kind) {
        return encrypted(kind, byName.get(kind));
    }

    /** The payload of a periodic job of {@code kind} as each slot's enqueue stores it: encrypted anew for an encrypted kind. */
    UnaryOperator<String> periodicPayload(String kind) {
        if (!encrypted(kind)) {
            return UnaryOperator.identity();
        }
        if (!crypto.hasKeys()) {
            throw new IllegalArgumentException("a periodic job of kind '" + kind + "', which is encrypted, needs "
                    + "payload keys (payloadKeys)");
        }
        return json -> crypto.seal(json, PayloadCrypto.payloadContext(kind), "the payload of a periodic job of kind '"
                + kind + "'");
    }

    /** A periodic job's row, its payload in clear ({@link #periodicPayload} encrypts it at each slot). */
    InsertRow periodicRow(NewJob job) {
        JobOptionRules.checkKind(job.kind());
        return row(job.kind(), byName.get(job.kind()), job.payload(), job.options(), false);
    }

    private InsertRow row(String kindName, JobKind<?> kind, Object payload, JobOptions given) {
        return row(kindName, kind, payload, given, true);
    }

    private InsertRow row(String kindName, JobKind<?> kind, Object payload, JobOptions given, boolean seal) {
        Objects.requireNonNull(given, "options");
        // The common call passes JobOptions.defaults(), which the kind's defaults replace whole: no copy per job.
        JobOptions options = kind == null ? given : given.withDefaults(kind.defaults());
        String json = codec.toJson(payload);
        if (encrypted(kindName, kind)) {
            if (seal) {
                json = crypto.seal(json, PayloadCrypto.payloadContext(kindName), "the payload of a job of kind '"
                        + kindName + "'");
            }
        } else {
            PayloadCrypto.refuseEnvelopeShape(json, "payload");
        }
        Long runAtMicros = options.runAt() == null ? null : epochMicros(options.runAt());
        Long delayMillis = options.delay() == null ? null : options.delay().toMillis();
        RetryPolicy retry = kind == null ? retryPolicy(kindName) : retryPolicy(kind);
        int maxAttempts = options.maxAttempts() != null ? options.maxAttempts() : retry.maxAttempts();
        int version = options.payloadVersion() != null ? options.payloadVersion() : kind == null ? 1 : kind.payloadVersion();
        return new InsertRow(options.queue(), kindName, json, version, options.priority(), runAtMicros, delayMillis,
                maxAttempts, options.tenant(), options.uniqueKey(),
                options.uniqueFor() == null ? null : options.uniqueFor().toMillis(),
                codec.metadataJson(observer.withTraceContext(options.metadata())), options.sequenceKey(),
                Boolean.TRUE.equals(options.haltSequenceOnDeath()), options.dependsOnIds(),
                options.dependencyMode().sqlName(), waits(options), debounce(options));
    }

    /** The job's debounce, or null for the common job that is not debounced. */
    private static InsertRow.Debounce debounce(JobOptions options) {
        return options.debounceKey() == null ? null : new InsertRow.Debounce(options.debounceKey(),
                options.debounceWindow().toMillis(), options.debounceMaxWait().toMillis());
    }

    /** What the job waits for beyond its dependencies, or null for the common job that waits for nothing. */
    private static InsertRow.Waits waits(JobOptions options) {
        if (options.awaitSignal() == null && options.delayAfterDependencies() == null) {
            return null;
        }
        return new InsertRow.Waits(options.awaitSignal(),
                options.signalTimeout() == null ? null : options.signalTimeout().toMillis(),
                options.onSignalTimeout() == null ? null : options.onSignalTimeout().name().toLowerCase(Locale.ROOT),
                options.delayAfterDependencies() == null ? null : options.delayAfterDependencies().toMillis());
    }

    /** {@link JobOptions.Builder#runAt} keeps {@code t} within the range PostgreSQL and this arithmetic hold. */
    private static long epochMicros(Instant t) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, t);
    }

    /** What {@link Docket.Builder} collects about kinds: declared kinds, and retry policies given by name. */
    static final class Declarations {
        private final Map<String, RetryPolicy> retryPolicies = new HashMap<>();
        private final Map<String, JobKind<?>> declared = new HashMap<>();
        private final Set<String> encryptedNames = new HashSet<>();

        void encrypted(String kind) {
            JobOptionRules.checkKind(kind);
            encryptedNames.add(kind);
        }

        void retryPolicy(String kind, RetryPolicy policy) {
            JobOptionRules.checkKind(kind);
            retryPolicies.put(kind, Objects.requireNonNull(policy, "policy"));
        }

        void declare(JobKind<?> kind) {
            Objects.requireNonNull(kind, "kind");
            if (declared.putIfAbsent(kind.name(), kind) != null) {
                throw new IllegalArgumentException("a kind named '" + kind.name() + "' is already declared");
            }
        }

        /**
         * The declared kinds, and a kind for each name given a retry policy.
         *
         * @throws IllegalArgumentException if a declared kind is also given a retry policy by name
         */
        KindRegistry build(PayloadCodec codec, RetryPolicy defaultRetryPolicy, JobObserver observer,
                           PayloadCrypto crypto) {
            Map<String, JobKind<?>> byName = new HashMap<>(declared);
            retryPolicies.forEach((name, policy) -> {
                if (declared.containsKey(name)) {
                    throw new IllegalArgumentException("kind '" + name + "' is declared with kind(JobKind): set its "
                            + "retry policy on that JobKind");
                }
                JobKind.Builder<Object> b = JobKind.of(name, Object.class).retry(policy);
                byName.put(name, (encryptedNames.contains(name) ? b.encrypted() : b).build());
            });
            for (String name : encryptedNames) {
                JobKind<?> kind = byName.get(name);
                if (kind == null) {
                    byName.put(name, JobKind.of(name, Object.class).encrypted().build());
                } else if (!kind.encrypted()) {
                    throw new IllegalArgumentException("kind '" + name + "' is named by encryptedKind but declared with "
                            + "kind(JobKind) without encrypted(): declare it encrypted on that JobKind");
                }
            }
            return new KindRegistry(codec, defaultRetryPolicy, Map.copyOf(byName), Map.copyOf(declared), observer,
                    crypto);
        }
    }
}
