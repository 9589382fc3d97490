package dev.docket.bench;

import dev.docket.Docket;
import dev.docket.JobKind;
import dev.docket.NewJob;
import dev.docket.PayloadKey;
import dev.docket.PayloadKeyProvider;
import dev.docket.Worker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Docket with its public API. Configs: {@code default} (7-day history), {@code delete} (historyRetention 0),
 * for drain only when named, {@code async} ({@code delete} with the workers' {@code asyncCommit(true)}: outcomes
 * and lease extensions commit without waiting for the WAL flush) and, for the {@code txhandler} scenario,
 * {@code transactional} (default, with a transactional handler that inserts one row on its transaction). Opt-in
 * for drain, bulk and single: {@code parcel} (default with a realistic payload, a parcel's recipient, address,
 * phone and items, about 450 bytes of JSON) and {@code encrypted} (the same payload, of a kind encrypted at rest
 * with AES-256-GCM): {@code encrypted} against {@code parcel} is the cost of the encryption alone,
 * against {@code default} that of the whole.
 */
final class DocketSut implements Sut {

    /** The schema the benchmark's Docket uses (also the scale-out worker processes'). */
    static final String SCHEMA = "bench";

    record Ping(long seq) {
    }

    /** A realistic payload: what a parcel-delivery case study enqueues, personal data included. */
    record Parcel(long seq, String trackingId, String recipient, String phone, String email, List<String> address,
                  String postcode, String country, List<Item> items, String instructions) {
    }

    record Item(String sku, int quantity, long grams) {
    }

    static final String TRANSACTIONAL = "transactional";
    static final String ASYNC = "async";
    static final String PARCEL = "parcel";
    static final String ENCRYPTED = "encrypted";

    /** A fixed key: the benchmark measures the cipher, not key management. */
    private static final PayloadKeyProvider KEYS = PayloadKeyProvider.of(List.of(PayloadKey.of("bench", new byte[32])));

    private boolean transactional;
    private boolean parcels;
    private JobKind<Parcel> parcelKind;
    private boolean asyncCommit;
    private Docket docket;
    private Worker worker;

    @Override
    public String name() {
        return "docket";
    }

    @Override
    public List<String> configs(String scenario) {
        return switch (scenario) {
            case "drain" -> List.of("default", "delete", ASYNC, PARCEL, ENCRYPTED);
            case "bulk", "single" -> List.of("default", PARCEL, ENCRYPTED);
            case "steady", "soak" -> List.of("default", "delete");
            case "scaleout" -> List.of("default");
            case "fairness" -> List.of(TenantFairness.CAPPED, TenantFairness.UNCAPPED);
            case "txhandler" -> List.of("default", TRANSACTIONAL);
            case "sequences" -> List.of(SequenceDrain.KEYED, SequenceDrain.UNKEYED);
            case "signals" -> List.of(SignalDrain.AT_ENQUEUE, SignalDrain.IN_HANDLER);
            case "ratelimit" -> List.of(RateLimitLoad.LIMITED, RateLimitLoad.UNLIMITED);
            default -> List.of("default");
        };
    }

    @Override
    public boolean optIn(String config) {
        return config.equals(ASYNC) || config.equals(PARCEL) || config.equals(ENCRYPTED);
    }

    @Override
    public LiveJobs liveJobs() {
        return new LiveJobs("SELECT count(*) FROM " + SCHEMA + ".jobs", List.of(SCHEMA + ".jobs"));
    }

    @Override
    public void open(String jdbcUrl, DataSource dataSource, String config) throws Exception {
        Docket.Builder b = Docket.builder(dataSource).schema(SCHEMA);
        if (config.equals("delete") || config.equals(ASYNC)) {
            b.historyRetention(Duration.ZERO);
        }
        asyncCommit = config.equals(ASYNC);
        parcels = config.equals(PARCEL) || config.equals(ENCRYPTED);
        JobKind.Builder<Parcel> kind = JobKind.of("noop", Parcel.class);
        if (config.equals(ENCRYPTED)) {
            kind.encrypted();
            b.payloadKeys(KEYS);
        }
        parcelKind = kind.build();
        docket = b.build();
        docket.migrate();
        transactional = config.equals(TRANSACTIONAL);
        if (transactional) {
            try (Connection c = dataSource.getConnection()) {
                Db.execute(c, "CREATE TABLE " + SCHEMA + ".tx_effects (seq bigint PRIMARY KEY)");
            }
        }
    }

    Docket docket() {
        return docket;
    }

    static Parcel parcel(long seq) {
        return new Parcel(seq, "DK" + (100_000_000L + seq) + "GB", "Ada Lovelace-Byron", "+44 20 7946 0" + (seq % 1000),
                "ada.lovelace" + seq + "@example.org", List.of("Flat " + (seq % 40 + 1), "12 St James's Square", "London"),
                "SW1Y 4JH", "GB", List.of(new Item("SKU-" + (seq % 997), 1 + (int) (seq % 3), 450),
                        new Item("SKU-CHARGER-USB-C", 1, 120)),
                "Leave with the concierge if nobody answers; ring twice.");
    }

    @Override
    public void enqueueBatch(long from, int count) {
        if (parcels) {
            List<Parcel> payloads = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                payloads.add(parcel(from + i));
            }
            docket.enqueueAll(parcelKind, payloads);
            return;
        }
        List<NewJob> jobs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            jobs.add(NewJob.of("noop", new Ping(from + i)));
        }
        docket.enqueueAll(jobs);
    }

    @Override
    public void enqueueOne(long seq) {
        if (parcels) {
            docket.enqueue(parcelKind, parcel(seq));
            return;
        }
        docket.enqueue("noop", new Ping(seq));
    }

    @Override
    public void startWorkers(int concurrency, Starts onStart) {
        Worker.Builder b = docket.worker().queue("default", concurrency).asyncCommit(asyncCommit);
        if (transactional) {
            b.transactionalHandler("noop", Ping.class, (p, ctx, tx) -> {
                onStart.started(p.seq(), System.nanoTime());
                try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + SCHEMA + ".tx_effects VALUES (?)")) {
                    ps.setLong(1, p.seq());
                    ps.executeUpdate();
                }
            });
        } else if (parcels) {
            b.handler(parcelKind, (p, ctx) -> onStart.started(p.seq(), System.nanoTime()));
        } else {
            b.handler("noop", Ping.class, (p, ctx) -> onStart.started(p.seq(), System.nanoTime()));
        }
        worker = b.start();
    }

    @Override
    public void stopWorkers() {
        if (worker != null) {
            worker.close();
            worker = null;
        }
    }

    /** Closing Docket stops its workers too. */
    @Override
    public void close() {
        if (docket != null) {
            docket.close();
        }
    }
}
