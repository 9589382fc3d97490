package dev.docket.server.spi;

import dev.docket.Docket;
import dev.docket.Worker;

/**
 * Plugs your own job handlers into {@code docket worker}. The worker finds every implementation on
 * its class path with {@link java.util.ServiceLoader}, lets each adjust the {@link Docket} it builds
 * ({@link #configure}), then register its handlers ({@link #register}).
 *
 * <p>To ship handlers:
 * <ol>
 *   <li>implement this interface in a public class with a public no-argument constructor;</li>
 *   <li>name that class in {@code META-INF/services/dev.docket.server.spi.HandlerProvider} of your jar
 *       (one class name per line);</li>
 *   <li>run the worker with your jar on the class path:
 *       {@code java -cp docket.jar:my-handlers.jar dev.docket.server.cli.DocketCommand worker --queue default=16},
 *       or {@code docket worker --handlers my-handlers.jar --queue default=16}.</li>
 * </ol>
 *
 * <pre>{@code
 * public final class BillingHandlers implements HandlerProvider {
 *     record Invoice(String orderId) {}
 *
 *     public void configure(Docket.Builder docket) {
 *         docket.retryPolicy("send_invoice", RetryPolicy.defaults().withMaxAttempts(5));
 *     }
 *
 *     public void register(Worker.Builder worker) {
 *         worker.handler("send_invoice", Invoice.class, (invoice, ctx) -> invoices.send(invoice.orderId()));
 *     }
 * }
 * }</pre>
 *
 * <p>A kind registered by two providers is an error that stops the worker at start. The built-in
 * demo kinds give way to yours: a provider that registers {@code send_email} replaces the demo's.
 * Providers are called once, on the worker's main thread, in class-path order.
 */
public interface HandlerProvider {

    /**
     * Adjusts the worker's {@link Docket} before it is built: per-kind retry policies, a custom
     * Jackson mapper for payloads, the payload size limit. The default does nothing. The schema and
     * the data source are the command's and must not be changed here.
     */
    default void configure(Docket.Builder docket) {
    }

    /**
     * Registers this provider's handlers with {@link Worker.Builder#handler}, or with
     * {@link Worker.Builder#transactionalHandler} for handlers whose database writes must commit with
     * their job's completion (each running job of those holds one more connection: raise
     * {@code --pool-size} by their queues' concurrency). The queues, lease and shutdown grace come
     * from the command line; a provider should not set them.
     */
    void register(Worker.Builder worker);
}
