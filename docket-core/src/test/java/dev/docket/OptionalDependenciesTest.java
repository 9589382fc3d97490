package dev.docket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.docket.testing.DocketTest;
import java.io.File;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Micrometer and the OpenTelemetry API are optional: Docket loaded in a class loader that has neither
 * builds, enqueues and runs a job. (The test's own class path has both, for the other tests.)
 */
class OptionalDependenciesTest extends DocketTest {

    @Test
    void docketRunsJobsWithoutMicrometerOrOpenTelemetry() throws Throwable {
        try (URLClassLoader loader = new URLClassLoader(classPathWithout("micrometer", "opentelemetry"),
                ClassLoader.getPlatformClassLoader())) {
            assertThatThrownBy(() -> Class.forName("io.micrometer.core.instrument.MeterRegistry", false, loader))
                    .isInstanceOf(ClassNotFoundException.class);
            assertThatThrownBy(() -> Class.forName("io.opentelemetry.api.trace.Span", false, loader))
                    .isInstanceOf(ClassNotFoundException.class);

            Class<?> docketClass = Class.forName("dev.docket.Docket", true, loader);
            // What a framework's bean introspection does with the Docket bean (Spring's does, on every bean): a
            // field or method with a Micrometer or OpenTelemetry type would throw NoClassDefFoundError here.
            assertThatCode(() -> {
                docketClass.getDeclaredFields();
                docketClass.getDeclaredMethods();
            }).as("reflection over Docket's fields and methods").doesNotThrowAnyException();
            Object builder = docketClass.getMethod("builder", DataSource.class).invoke(null, dataSource());
            // Not through Class.getMethod: listing the builder's methods resolves meterRegistry(MeterRegistry)'s
            // parameter type, so reflection over the whole builder needs Micrometer; calling it does not.
            Class<?> builderClass = builder.getClass();
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            builder = lookup.findVirtual(builderClass, "schema", MethodType.methodType(builderClass, String.class))
                    .invoke(builder, schema);
            Object docket = lookup.findVirtual(builderClass, "build", MethodType.methodType(docketClass)).invoke(builder);
            try (AutoCloseable closing = (AutoCloseable) docket) {
                docketClass.getMethod("migrate").invoke(docket);
                assertThat((Optional<?>) docketClass.getMethod("meterRegistry").invoke(docket)).isEmpty();

                CountDownLatch ran = new CountDownLatch(1);
                Class<?> handlerType = Class.forName("dev.docket.JobHandler", true, loader);
                Object handler = Proxy.newProxyInstance(loader, new Class<?>[] {handlerType}, (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("equals") ? proxy == args[0]
                                : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : "handler";
                    }
                    ran.countDown();
                    return null;
                });
                Object worker = docketClass.getMethod("worker").invoke(docket);
                Method queue = worker.getClass().getMethod("queue", String.class, int.class);
                Method handlerMethod = worker.getClass().getMethod("handler", String.class, Class.class, handlerType);
                // The pool's PgJDBC is not this loader's, so the listener could not unwrap its connection: poll.
                worker = worker.getClass().getMethod("listen", boolean.class).invoke(worker, false);
                worker = queue.invoke(worker, "default", 1);
                worker = handlerMethod.invoke(worker, "plain", Map.class, handler);
                worker.getClass().getMethod("start").invoke(worker);

                long id = (long) docketClass.getMethod("enqueue", String.class, Object.class)
                        .invoke(docket, "plain", Map.of("n", 1));
                assertThat(ran.await(20, TimeUnit.SECONDS)).isTrue();
                await().atMost(Duration.ofSeconds(20)).until(() -> state(docketClass, docket, id).equals("COMPLETED"));
                assertThat(queryLong("SELECT count(*) FROM {s}.jobs WHERE metadata ->> 'traceparent' IS NOT NULL")).isZero();
            }
        }
    }

    private static String state(Class<?> docketClass, Object docket, long id) throws ReflectiveOperationException {
        Object job = ((Optional<?>) docketClass.getMethod("job", long.class).invoke(docket, id)).orElseThrow();
        return job.getClass().getMethod("state").invoke(job).toString();
    }

    /** The test class path (surefire passes it in a property of its own) less the entries naming {@code excluded}. */
    private static URL[] classPathWithout(String... excluded) throws Exception {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            boolean keep = true;
            for (String name : excluded) {
                keep &= !entry.contains(name);
            }
            if (keep && !entry.isBlank()) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        return urls.toArray(URL[]::new);
    }
}
