package dev.docket.server.cli;

import dev.docket.Docket;
import dev.docket.JobHandler;
import dev.docket.JobKind;
import dev.docket.PermanentJobFailure;
import dev.docket.RetryPolicy;
import dev.docket.Worker;
import dev.docket.server.spi.HandlerProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The demo's job kinds, which {@code docket worker} runs unless {@code --no-demo-handlers}: they
 * sleep instead of working, and fail the way real jobs do.
 *
 * <table>
 *   <caption>Demo kinds</caption>
 *   <tr><th>kind</th><th>queue</th><th>behaviour</th></tr>
 *   <tr><td>{@code thumbnail}</td><td>default</td><td>5-40 ms; a width of 0 fails permanently</td></tr>
 *   <tr><td>{@code send_email}</td><td>email</td><td>30-250 ms; 3% of attempts fail (SMTP 421), then retry</td></tr>
 *   <tr><td>{@code sync_crm}</td><td>default</td><td>fails its first {@code failures} attempts (CRM 503), then succeeds</td></tr>
 *   <tr><td>{@code charge_card}</td><td>default</td><td>50-150 ms; an invalid card fails permanently</td></tr>
 *   <tr><td>{@code deliver_webhook}</td><td>default</td><td>20-100 ms; the dead endpoint times out until the attempts run out</td></tr>
 *   <tr><td>{@code generate_report}</td><td>reports</td><td>runs for {@code seconds} (3-20 s): what a killed worker leaves behind</td></tr>
 * </table>
 */
public final class DemoHandlers implements HandlerProvider {

    /** An image to resize. */
    public record Thumbnail(String imageId, int width) {
    }

    /** A templated email. */
    public record Email(String to, String template) {
    }

    /** An account to push to a flaky CRM, which answers 503 to the first {@code failures} attempts. */
    public record CrmSync(String accountId, int failures) {
    }

    /** A card payment. */
    public record Charge(String orderId, long cents, boolean cardValid) {
    }

    /** An event to POST to a customer's endpoint. */
    public record Webhook(String endpoint, String event) {
    }

    /** A report that takes {@code seconds} to build. */
    public record Report(String reportId, int seconds) {
    }

    /** The endpoint that never answers: its webhooks end in the dead-letter table. */
    static final String DEAD_ENDPOINT = "https://hooks.globex.example/dead";

    /** Short backoffs, so that retries and dead jobs show within a minute. */
    @Override
    public void configure(Docket.Builder docket) {
        docket.retryPolicy("send_email", new RetryPolicy(5, Duration.ofSeconds(1), Duration.ofSeconds(10), 0.2));
        docket.retryPolicy("sync_crm", new RetryPolicy(6, Duration.ofSeconds(1), Duration.ofSeconds(8), 0.2));
        docket.retryPolicy("deliver_webhook", new RetryPolicy(4, Duration.ofSeconds(1), Duration.ofSeconds(5), 0.2));
        docket.retryPolicy("generate_report", new RetryPolicy(3, Duration.ofSeconds(2), Duration.ofSeconds(10), 0.2));
    }

    @Override
    public void register(Worker.Builder worker) {
        registerUnclaimed(worker);
    }

    /**
     * Registers every demo kind that no other provider registered already, and returns the kinds it
     * left to the others.
     */
    static List<String> registerUnclaimed(Worker.Builder worker) {
        List<String> skipped = new ArrayList<>();
        add(worker, skipped, JobKind.of("thumbnail", Thumbnail.class).build(), (t, ctx) -> {
            if (t.width() <= 0) {
                throw new PermanentJobFailure("width must be positive");
            }
            work(5, 40);
        });
        add(worker, skipped, JobKind.of("send_email", Email.class).build(), (e, ctx) -> {
            work(30, 250);
            if (ThreadLocalRandom.current().nextInt(100) < 3) {
                throw new IllegalStateException("SMTP 421 4.7.0 try again later");
            }
        });
        add(worker, skipped, JobKind.of("sync_crm", CrmSync.class).build(), (s, ctx) -> {
            work(20, 80);
            if (ctx.attempt() <= s.failures()) {
                throw new IllegalStateException("CRM answered 503 Service Unavailable (attempt " + ctx.attempt() + ")");
            }
        });
        add(worker, skipped, JobKind.of("charge_card", Charge.class).build(), (c, ctx) -> {
            work(50, 150);
            if (!c.cardValid()) {
                throw new PermanentJobFailure("card declined: expired card");
            }
        });
        add(worker, skipped, JobKind.of("deliver_webhook", Webhook.class).build(), (w, ctx) -> {
            work(20, 100);
            if (DEAD_ENDPOINT.equals(w.endpoint())) {
                throw new IllegalStateException("POST " + w.endpoint() + " timed out after 10s");
            }
        });
        add(worker, skipped, JobKind.of("generate_report", Report.class).timeout(Duration.ofMinutes(2)).build(),
                (r, ctx) -> Thread.sleep(r.seconds() * 1000L));
        return skipped;
    }

    private static <T> void add(Worker.Builder worker, List<String> skipped, JobKind<T> kind, JobHandler<T> handler) {
        try {
            worker.handler(kind, handler);
        } catch (IllegalArgumentException e) {
            // Another provider registered this kind: its handler wins.
            skipped.add(kind.name());
        }
    }

    private static void work(int minMillis, int maxMillis) throws InterruptedException {
        Thread.sleep(ThreadLocalRandom.current().nextInt(minMillis, maxMillis + 1));
    }
}
