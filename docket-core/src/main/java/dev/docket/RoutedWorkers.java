package dev.docket;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The workers of a routed setup, one {@link Worker} per database, started from one declaration by
 * {@link DocketRouter#worker()}:
 *
 * <pre>{@code
 * try (RoutedWorkers workers = router.worker()
 *         .queue("email", 16)                        // served in the database "email" is routed to
 *         .queue("thumbnails", 8)
 *         .handler(SEND_RECEIPT, (r, ctx) -> ...)    // every database's worker gets every handler
 *         .handler(THUMBNAIL, (t, ctx) -> ...)
 *         .configure(w -> w.shutdownGrace(Duration.ofSeconds(30)))   // any other worker setting
 *         .start()) {
 *     ...
 * }
 * }</pre>
 *
 * <p>A database gets a worker when at least one declared queue is routed to it; that worker also
 * serves the database's {@linkplain DocketRouter#OUTBOX_QUEUE outbox queue} (concurrency 2 unless
 * {@link Builder#outboxConcurrency} says otherwise), which forwards the jobs enqueued with
 * {@link DocketRouter#enqueueAcross}. Each worker is its Docket's own: its leader election, cron and
 * maintenance run per database. {@link #close()} stops them all.
 */
public final class RoutedWorkers implements AutoCloseable {

    private final Map<String, Worker> workers;

    private RoutedWorkers(Map<String, Worker> workers) {
        this.workers = Collections.unmodifiableMap(workers);
    }

    /** The workers by database name, in the router's order. */
    public Map<String, Worker> byDatabase() {
        return workers;
    }

    /**
     * The worker of database {@code name}.
     *
     * @throws IllegalArgumentException when no worker was started for it
     */
    public Worker worker(String name) {
        Worker w = workers.get(name);
        if (w == null) {
            throw new IllegalArgumentException("no worker for database '" + name + "'; workers: " + workers.keySet());
        }
        return w;
    }

    /** Gracefully stops every worker (each as {@link Worker#close()}). Safe to call twice. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (Worker w : workers.values()) {
            try {
                w.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Declares the queues, handlers and settings of a routed setup's workers. */
    public static final class Builder {

        /** The outbox queue's concurrency on each database's worker by default. */
        public static final int DEFAULT_OUTBOX_CONCURRENCY = 2;

        private final DocketRouter router;
        private final Map<String, Integer> queues = new LinkedHashMap<>();
        private final List<UnaryOperator<Worker.Builder>> setup = new ArrayList<>();
        private int outboxConcurrency = DEFAULT_OUTBOX_CONCURRENCY;

        Builder(DocketRouter router) {
            this.router = router;
        }

        /**
         * Serves {@code queue} with up to {@code concurrency} jobs at once, on the worker of the database
         * it is routed to.
         *
         * @throws IllegalArgumentException when the queue is routed nowhere, or as {@link Worker.Builder#queue}
         */
        public Builder queue(String queue, int concurrency) {
            if (router.databaseOf(Objects.requireNonNull(queue, "queue")).isEmpty()) {
                throw new IllegalArgumentException("queue '" + queue + "' is routed to no database; routed queues: "
                        + router.routes().keySet());
            }
            if (concurrency < 1 || concurrency > 10_000) {
                throw new IllegalArgumentException("concurrency of queue " + queue + " must be between 1 and 10000, was "
                        + concurrency);
            }
            queues.put(queue, concurrency);
            return this;
        }

        /** Registers {@code handler} on every database's worker (as {@link Worker.Builder#handler(JobKind, JobHandler)}). */
        public <T> Builder handler(JobKind<T> kind, JobHandler<T> handler) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(handler, "handler");
            setup.add(w -> w.handler(kind, handler));
            return this;
        }

        /** Registers {@code handler} on every database's worker (as {@link Worker.Builder#handler(String, Class, JobHandler)}). */
        public <T> Builder handler(String kind, Class<T> payloadType, JobHandler<T> handler) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(payloadType, "payloadType");
            Objects.requireNonNull(handler, "handler");
            setup.add(w -> w.handler(kind, payloadType, handler));
            return this;
        }

        /** Registers a transactional handler on every database's worker (its transaction is its own database's). */
        public <T> Builder transactionalHandler(JobKind<T> kind, TransactionalJobHandler<T> handler) {
            Objects.requireNonNull(kind, "kind");
            Objects.requireNonNull(handler, "handler");
            setup.add(w -> w.transactionalHandler(kind, handler));
            return this;
        }

        /** Any other setting of each database's worker (poll interval, lease, shutdown grace...); applied in order. */
        public Builder configure(UnaryOperator<Worker.Builder> settings) {
            setup.add(Objects.requireNonNull(settings, "settings"));
            return this;
        }

        /** How many outbox jobs each database's worker forwards at once, default 2; 0 serves no outbox queue. */
        public Builder outboxConcurrency(int concurrency) {
            if (concurrency < 0 || concurrency > 10_000) {
                throw new IllegalArgumentException("outboxConcurrency must be between 0 and 10000, was " + concurrency);
            }
            this.outboxConcurrency = concurrency;
            return this;
        }

        /**
         * Starts one worker per database that has a declared queue. When one fails to start, those
         * already started are stopped.
         *
         * @throws IllegalStateException when no queue was declared
         */
        public RoutedWorkers start() {
            if (queues.isEmpty()) {
                throw new IllegalStateException("declare at least one queue with queue(name, concurrency)");
            }
            Map<String, Map<String, Integer>> byDatabase = new LinkedHashMap<>();
            for (String db : router.databases().keySet()) {
                Map<String, Integer> mine = new LinkedHashMap<>();
                queues.forEach((q, n) -> {
                    if (router.databaseOf(q).orElseThrow().equals(db)) {
                        mine.put(q, n);
                    }
                });
                if (!mine.isEmpty()) {
                    byDatabase.put(db, mine);
                }
            }
            Map<String, Worker> started = new LinkedHashMap<>();
            try {
                byDatabase.forEach((db, mine) -> {
                    Worker.Builder w = router.database(db).worker();
                    mine.forEach(w::queue);
                    if (outboxConcurrency > 0) {
                        w.queue(DocketRouter.OUTBOX_QUEUE, outboxConcurrency)
                                .handler(DocketRouter.OUTBOX, router.outboxHandler(db));
                    }
                    for (UnaryOperator<Worker.Builder> s : setup) {
                        w = s.apply(w);
                    }
                    started.put(db, w.start());
                });
            } catch (RuntimeException e) {
                new RoutedWorkers(started).close();
                throw e;
            }
            return new RoutedWorkers(started);
        }
    }
}
