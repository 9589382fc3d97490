package dev.docket.spring;

import dev.docket.Docket;
import dev.docket.Worker;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The application's Docket worker: started with the application context when
 * {@code docket.worker.enabled} (the default), stopped in the graceful-shutdown phase, where running
 * handlers get {@code docket.worker.shutdown-grace} to finish before they are interrupted and their jobs
 * go back to the queue at once. Without {@link DocketHandler} beans it serves no queue and only takes
 * part in maintenance (due scheduled jobs, rescues, retention), unless {@code docket.worker.maintenance=false}.
 *
 * <p>{@link #builder()} gives a worker builder with the same queues, handlers and settings, which a
 * test uses to run jobs on its own thread: {@code workers.builder().runReadyJobs()}.
 */
public class DocketWorkers implements SmartLifecycle {

    /**
     * The lifecycle phase the worker starts in and stops in: that of the web server's graceful
     * shutdown, so that both wind down together, after which the data source is closed.
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private static final Logger log = LoggerFactory.getLogger(DocketWorkers.class);

    private final Docket docket;
    private final DocketSettings settings;
    private final HandlerBeans handlers;
    private final List<DocketWorkerCustomizer> customizers;
    private final boolean enabled;
    private volatile Worker worker;

    DocketWorkers(Docket docket, DocketSettings settings, HandlerBeans handlers, List<DocketWorkerCustomizer> customizers,
                  boolean enabled) {
        this.docket = docket;
        this.settings = settings;
        this.handlers = handlers;
        this.customizers = List.copyOf(customizers);
        this.enabled = enabled;
        // Built now, so that a bad property or handler fails the context's startup, not its first job.
        builder();
    }

    /**
     * A new worker builder with the {@code docket.worker.*} settings, every {@link DocketHandler} bean
     * and the {@link DocketWorkerCustomizer}s applied; not started.
     */
    public Worker.Builder builder() {
        Worker.Builder b = docket.worker();
        settings.applyTo(b);
        handlers.registerOn(b);
        customizers.forEach(c -> c.customize(b));
        return b;
    }

    /** The running worker, while there is one. */
    public Optional<Worker> worker() {
        return Optional.ofNullable(worker);
    }

    @Override
    public void start() {
        if (!enabled) {
            return;
        }
        if (!handlers.isEmpty()) {
            worker = builder().start();
        } else if (settings.maintenance()) {
            // Jobs this application schedules still need a maintenance leader to become due.
            Worker.Builder b = docket.worker();
            settings.applyOptionsTo(b);
            worker = b.start();
            log.info("docket: no @DocketHandler beans: this application's worker runs maintenance only");
        } else {
            log.warn("docket: no @DocketHandler beans and docket.worker.maintenance=false: no worker runs "
                    + "(set docket.worker.enabled=false to say that this is intended)");
        }
    }

    /** Stops the worker gracefully: this takes up to {@code docket.worker.shutdown-grace} and a few seconds more. */
    @Override
    public void stop() {
        Worker w = worker;
        if (w != null) {
            w.close();
            worker = null;
        }
    }

    /** Stops on a thread of its own, so that the web server's graceful shutdown in the same phase runs alongside. */
    @Override
    public void stop(Runnable callback) {
        Thread.ofPlatform().name("docket-worker-shutdown").start(() -> {
            try {
                stop();
            } finally {
                callback.run();
            }
        });
    }

    @Override
    public boolean isRunning() {
        return worker != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
