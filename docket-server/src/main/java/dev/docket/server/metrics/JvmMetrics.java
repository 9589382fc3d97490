package dev.docket.server.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;

/**
 * The JVM's and the process's meters ({@code jvm_*}, {@code process_*}, {@code system_cpu_*}) that every
 * Docket process serves beside its own: the server's {@code /metrics} and a worker's alike. Closing stops
 * the garbage collection listener.
 */
final class JvmMetrics implements AutoCloseable {

    private final JvmGcMetrics gcMetrics = new JvmGcMetrics();

    JvmMetrics(MeterRegistry registry) {
        new JvmMemoryMetrics().bindTo(registry);
        gcMetrics.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    @Override
    public void close() {
        gcMetrics.close();
    }
}
