package dev.docket.spring;

import dev.docket.Worker;

/**
 * A bean that adjusts each {@link Worker.Builder} the starter makes (the worker it runs, and those of
 * {@link DocketWorkers#builder()}), after the {@code docket.worker.*} properties and the handler
 * beans are applied: for example a {@code listenerDataSource} that bypasses a transaction-pooling
 * proxy, or handlers registered in code. Customizers run in {@code @Order}.
 */
@FunctionalInterface
public interface DocketWorkerCustomizer {

    void customize(Worker.Builder builder);
}
