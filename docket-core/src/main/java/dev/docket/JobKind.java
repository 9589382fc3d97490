package dev.docket;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.internal.rules.JobOptionRules;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * Everything about one kind of job, declared once and shared by the code that enqueues it and the
 * worker that runs it:
 *
 * <pre>{@code
 * static final JobKind<SendEmail> SEND_EMAIL = JobKind.of("send_email", SendEmail.class)
 *         .retry(RetryPolicy.defaults().withMaxAttempts(5))
 *         .defaults(KindDefaults.builder().queue("email").build())
 *         .lease(Duration.ofMinutes(2))
 *         .build();
 *
 * docket.enqueue(SEND_EMAIL, new SendEmail("a@b.c"));           // type-checked
 * docket.worker().queue("email", 8).handler(SEND_EMAIL, (email, ctx) -> mailer.send(email)).start();
 * }</pre>
 *
 * <p>Immutable and thread-safe. Defaults, each replaced by the matching builder method:
 * <ul>
 *   <li>payload version 1, no upcasters ({@link Builder#payloadVersion}, {@link Builder#upcaster});</li>
 *   <li>retry policy: the Docket's for the kind's name ({@link Docket.Builder#retryPolicy(String,
 *       RetryPolicy)}), else its default ({@link Docket.Builder#defaultRetryPolicy}, itself
 *       {@link RetryPolicy#defaults()} unless configured) ({@link Builder#retry});</li>
 *   <li>options: queue {@code default}, priority 0, no tenant, max attempts from the retry policy
 *       ({@link Builder#defaults}); a job's own {@link JobOptions} win over them;</li>
 *   <li>lease: the worker's (30 s unless configured); timeout: none ({@link Builder#lease},
 *       {@link Builder#timeout});</li>
 *   <li>a job whose payload version is newer than the handler reads waits up to 1 hour for a worker
 *       that reads it, then fails permanently ({@link Builder#newerVersionWait}).</li>
 * </ul>
 *
 * <p>Registering a kind on the Docket ({@link Docket.Builder#kind}) is optional: it makes the
 * string-kind forms ({@code enqueue("send_email", payload)}, periodic jobs, and
 * {@code handler("send_email", type, handler)}) use the kind's settings too.
 *
 * @param <T> the payload type: a record or class Jackson can map, or {@code JsonNode}
 */
public final class JobKind<T> {

    /** How long a job of a payload version newer than its handler reads waits by default. */
    public static final Duration DEFAULT_NEWER_VERSION_WAIT = Duration.ofHours(1);

    private final String name;
    private final Class<T> payloadType;
    private final int payloadVersion;
    private final Map<Integer, UnaryOperator<JsonNode>> upcasters;
    private final RetryPolicy retry;
    private final KindDefaults defaults;
    private final Duration lease;
    private final Duration timeout;
    private final Duration newerVersionWait;
    private final boolean encrypted;
    private final boolean acceptPlaintext;
    /** Made by {@link #named}: its settings are those the Docket has for its name. */
    private final boolean byName;

    private JobKind(Builder<T> b) {
        this(b, false);
    }

    private JobKind(Builder<T> b, boolean byName) {
        this.name = b.name;
        this.payloadType = b.payloadType;
        this.payloadVersion = b.payloadVersion;
        this.upcasters = Map.copyOf(b.upcasters);
        this.retry = b.retry;
        this.defaults = b.defaults;
        this.lease = b.lease;
        this.timeout = b.timeout;
        this.newerVersionWait = b.newerVersionWait;
        this.encrypted = b.encrypted;
        this.acceptPlaintext = b.acceptPlaintext;
        this.byName = byName;
    }

    /**
     * Starts declaring a kind.
     *
     * @param name        the kind's name, stored with each job and selecting its handler: 1 to
     *                    {@value Docket#MAX_KIND_LENGTH} characters without control characters
     * @param payloadType what its payloads are mapped to and from
     */
    public static <T> Builder<T> of(String name, Class<T> payloadType) {
        return new Builder<>(name, payloadType);
    }

    /**
     * The kind of the name {@code name}, for the forms that answer {@link Enqueued} (and handlers) when
     * the payload is whatever the caller passes: {@code docket.enqueue(JobKind.named("send_email"), payload,
     * options)} enqueues exactly as {@code docket.enqueue("send_email", payload, options)} does, with the
     * settings the Docket declares for the name ({@link Docket.Builder#kind}), if any, and answers whether
     * it inserted the job. A handler registered with it reads payloads as {@code Object} (maps, lists,
     * strings, numbers); declare a kind with {@link #of} for a payload type of your own. Its own
     * settings are the defaults, and are not used.
     *
     * @throws IllegalArgumentException for a name that is blank, longer than {@value Docket#MAX_KIND_LENGTH}
     *                                  characters, or not printable text
     */
    public static JobKind<Object> named(String name) {
        return new JobKind<>(new Builder<>(name, Object.class), true);
    }

    /** Whether this kind was made by {@link #named}: the Docket's settings for its name apply, not its own. */
    boolean byName() {
        return byName;
    }

    /** The kind's name. */
    public String name() {
        return name;
    }

    /** The type payloads are mapped to and from. */
    public Class<T> payloadType() {
        return payloadType;
    }

    /** The payload version enqueued jobs are stamped with and the handler reads; default 1. */
    public int payloadVersion() {
        return payloadVersion;
    }

    /** The upcasters by the version they read ({@code get(v)} turns version v into v + 1); empty by default. */
    public Map<Integer, UnaryOperator<JsonNode>> upcasters() {
        return upcasters;
    }

    /** The kind's retry policy, or {@code null} for the Docket's default. */
    public RetryPolicy retryPolicy() {
        return retry;
    }

    /** What jobs of this kind get where their own options leave it unset; {@link KindDefaults#none()} by default. */
    public KindDefaults defaults() {
        return defaults;
    }

    /** How long a claim holds a job of this kind without a heartbeat, or {@code null} for the worker's lease. */
    public Duration lease() {
        return lease;
    }

    /** How long one attempt may run before it is interrupted and fails, or {@code null} for no limit. */
    public Duration timeout() {
        return timeout;
    }

    /**
     * How long a job whose payload version is newer than this kind's waits for a worker that reads it
     * before it fails permanently; default {@link #DEFAULT_NEWER_VERSION_WAIT}.
     */
    public Duration newerVersionWait() {
        return newerVersionWait;
    }

    /** Whether payloads, outputs and signal payloads of this kind are encrypted at rest ({@link Builder#encrypted}); default false. */
    public boolean encrypted() {
        return encrypted;
    }

    /** Whether a worker runs a job of this encrypted kind whose payload is stored in clear ({@link Builder#acceptPlaintext}); default false. */
    public boolean acceptsPlaintext() {
        return acceptPlaintext;
    }

    /** A builder holding this kind's settings, to declare a variant. */
    public Builder<T> toBuilder() {
        return copy(payloadType);
    }

    private <U> Builder<U> copy(Class<U> type) {
        Builder<U> b = new Builder<>(name, type);
        b.payloadVersion = payloadVersion;
        b.upcasters.putAll(upcasters);
        b.retry = retry;
        b.defaults = defaults;
        b.lease = lease;
        b.timeout = timeout;
        b.newerVersionWait = newerVersionWait;
        b.encrypted = encrypted;
        b.acceptPlaintext = acceptPlaintext;
        return b;
    }

    /** This kind with another payload type: a declared kind's settings for a handler registered by name. */
    <U> JobKind<U> withPayloadType(Class<U> type) {
        return new JobKind<>(copy(type));
    }

    /**
     * {@code options} with this kind's defaults and payload version filled in where they are unset; as
     * given for a kind {@link #named by name}, whose settings the Docket fills in at enqueue.
     */
    JobOptions resolve(JobOptions options) {
        Objects.requireNonNull(options, "options");
        if (byName) {
            return options;
        }
        JobOptions resolved = options.withDefaults(defaults);
        if (resolved.payloadVersion() == null || (resolved.maxAttempts() == null && retry != null)) {
            JobOptions.Builder b = resolved.toBuilder();
            if (resolved.payloadVersion() == null) {
                b.payloadVersion(payloadVersion);
            }
            if (resolved.maxAttempts() == null && retry != null) {
                b.maxAttempts(retry.maxAttempts());
            }
            resolved = b.build();
        }
        return resolved;
    }

    @Override
    public String toString() {
        if (byName) {
            return "JobKind[" + name + ", by name]";
        }
        return "JobKind[" + name + ", " + payloadType.getSimpleName() + ", version " + payloadVersion
                + (encrypted ? ", encrypted" : "") + "]";
    }

    /** Declares a {@link JobKind}; each setter checks its value, {@link #build()} checks them together. */
    public static final class Builder<T> {
        private final String name;
        private final Class<T> payloadType;
        private int payloadVersion = 1;
        private final TreeMap<Integer, UnaryOperator<JsonNode>> upcasters = new TreeMap<>();
        private RetryPolicy retry;
        private KindDefaults defaults = KindDefaults.none();
        private Duration lease;
        private Duration timeout;
        private Duration newerVersionWait = DEFAULT_NEWER_VERSION_WAIT;
        private boolean encrypted;
        private boolean acceptPlaintext;

        private Builder(String name, Class<T> payloadType) {
            JobOptionRules.checkKind(name);
            this.name = name;
            this.payloadType = Objects.requireNonNull(payloadType, "payloadType");
        }

        /**
         * The current version of the payload's shape, at least 1; default 1. Producers stamp it, and
         * the handler reads it; older payloads reach the handler through the {@link #upcaster}s.
         */
        public Builder<T> payloadVersion(int version) {
            if (version < 1) {
                throw new IllegalArgumentException("payloadVersion of kind '" + name + "' must be >= 1, was " + version);
            }
            this.payloadVersion = version;
            return this;
        }

        /**
         * How a payload of version {@code fromVersion} becomes version {@code fromVersion + 1} (a JSON tree
         * to a JSON tree), so that jobs enqueued before a deploy still run after it. An upcaster that
         * throws fails the job permanently, without the payload in the error.
         */
        public Builder<T> upcaster(int fromVersion, UnaryOperator<JsonNode> upcaster) {
            Objects.requireNonNull(upcaster, "upcaster");
            if (fromVersion < 1) {
                throw new IllegalArgumentException("fromVersion of an upcaster of kind '" + name + "' must be >= 1, was "
                        + fromVersion);
            }
            if (upcasters.putIfAbsent(fromVersion, upcaster) != null) {
                throw new IllegalArgumentException("kind '" + name + "' already has an upcaster from version " + fromVersion);
            }
            return this;
        }

        /** The retry policy (its max attempts apply at enqueue, its backoff in workers); default: the Docket's. */
        public Builder<T> retry(RetryPolicy policy) {
            this.retry = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * What jobs of this kind get where their own options leave it unset: queue, priority, max
         * attempts, tenant, whether a death halts the sequence. Default {@link KindDefaults#none()}.
         */
        public Builder<T> defaults(KindDefaults defaults) {
            Objects.requireNonNull(defaults, "defaults");
            this.defaults = defaults;
            return this;
        }

        /** How long a claim holds a job without a heartbeat, at least 1 s; default: the worker's lease. */
        public Builder<T> lease(Duration lease) {
            Objects.requireNonNull(lease, "lease");
            if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
                throw new IllegalArgumentException("lease of kind '" + name + "' must be at least 1s, was " + lease);
            }
            this.lease = lease;
            return this;
        }

        /**
         * How long one attempt may run before its handler is interrupted and the attempt fails with a
         * timeout error (then retried per the retry policy); positive; default: no limit.
         */
        public Builder<T> timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout of kind '" + name + "' must be positive, was " + timeout);
            }
            this.timeout = timeout;
            return this;
        }

        /**
         * During a rolling deploy a new producer may enqueue a payload version that old workers cannot
         * read yet. Such a job is not failed: an old worker puts it back (its attempt not counted),
         * at growing intervals from 1 s to 1 min, with the reason in its metadata ({@link JobInfo#waitReason()}),
         * until a worker that reads the version takes it. Only when none has for this long does it
         * fail permanently (to the dead-letter table). From 0 (fail at once) to 30 days; default 1 hour.
         */
        public Builder<T> newerVersionWait(Duration wait) {
            Objects.requireNonNull(wait, "wait");
            if (wait.isNegative() || wait.compareTo(Duration.ofDays(30)) > 0) {
                throw new IllegalArgumentException("newerVersionWait of kind '" + name + "' must be from 0 to 30 days, was "
                        + wait);
            }
            this.newerVersionWait = wait;
            return this;
        }

        /**
         * Encrypts this kind's payloads, the outputs its handlers record and the signals sent to its jobs
         * with AES-256-GCM before they leave the JVM, under the current key of the Docket's
         * {@link Docket.Builder#payloadKeys}; handlers get them in clear. Default: not encrypted.
         *
         * <p>Every Docket that enqueues the kind must know it is encrypted: the one that enqueues it with this
         * {@code JobKind}, or by name when the kind is declared on it ({@link Docket.Builder#kind}) or named
         * with {@link Docket.Builder#encryptedKind}. An enqueue on a Docket without keys is refused
         * ({@link EncryptedPayloadException}), never stored in clear. A worker refuses a payload of the kind
         * stored in clear (enqueued by SQL's {@code enqueue()}, or by a Docket that did not know) unless
         * {@link #acceptPlaintext()}. Upcasters run on the decrypted payload. See the README's "Payloads
         * encrypted at rest" for what each path can and cannot do.
         */
        public Builder<T> encrypted() {
            this.encrypted = true;
            return this;
        }

        /**
         * Lets workers run jobs of this {@link #encrypted()} kind whose payload (and signals) are stored in
         * clear: those enqueued by the SQL function {@code enqueue()}, which cannot encrypt, and those enqueued
         * before the kind was made encrypted. Default: refused, the job fails permanently (to the dead-letter
         * table, where it can be replayed) with an {@link EncryptedPayloadException}.
         */
        public Builder<T> acceptPlaintext() {
            this.acceptPlaintext = true;
            return this;
        }

        /**
         * The kind.
         *
         * @throws IllegalArgumentException if the upcasters do not lead, without a gap, from the oldest
         *                                  version they read up to the payload version
         */
        public JobKind<T> build() {
            if (!upcasters.isEmpty()) {
                int oldest = upcasters.firstKey();
                for (int v = oldest; v < payloadVersion; v++) {
                    if (!upcasters.containsKey(v)) {
                        throw new IllegalArgumentException("kind '" + name + "' has no upcaster from version " + v
                                + " to " + (v + 1) + "; its upcasters must lead from version " + oldest
                                + " up to its payload version " + payloadVersion);
                    }
                }
                int newest = upcasters.lastKey();
                if (newest >= payloadVersion) {
                    throw new IllegalArgumentException("kind '" + name + "' has an upcaster from version " + newest
                            + " but its payload version is " + payloadVersion + "; upcasters lead up to it");
                }
            }
            if (acceptPlaintext && !encrypted) {
                throw new IllegalArgumentException("kind '" + name + "' accepts plaintext payloads but is not "
                        + "encrypted; acceptPlaintext() goes with encrypted()");
            }
            return new JobKind<>(this);
        }
    }
}
