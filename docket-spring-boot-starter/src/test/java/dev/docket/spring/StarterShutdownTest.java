package dev.docket.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.JobHandler;
import dev.docket.JobInfo;
import dev.docket.JobState;
import dev.docket.spring.app.ShopApplication;
import dev.docket.test.TestPostgres;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Closing the application stops its worker gracefully: a handler still running after the grace is interrupted and its job released at once. */
class StarterShutdownTest {

    static final String SCHEMA = SchemaPerClass.newName();

    record Slow(String name) {
    }

    /** A handler declared by a {@code @Bean} method: its payload type comes from the method's return type. */
    @Configuration(proxyBeanMethods = false)
    static class SlowJobs {
        static final CountDownLatch started = new CountDownLatch(1);
        static final AtomicBoolean closing = new AtomicBoolean();
        static final AtomicBoolean interruptedWhileClosing = new AtomicBoolean();

        @Bean
        @DocketHandler("slow")
        JobHandler<Slow> slowHandler() {
            return (slow, ctx) -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await();
                } catch (InterruptedException e) {
                    interruptedWhileClosing.set(closing.get());
                    throw e;
                }
            };
        }
    }

    @AfterAll
    static void dropSchema() {
        TestPostgres.get().execute("DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE");
    }

    @Test
    void shutdownInterruptsAHandlerPastTheGraceAndReleasesItsJobAtOnce() throws Exception {
        long id;
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ShopApplication.class, SlowJobs.class)
                .web(WebApplicationType.NONE)
                .properties("docket.schema=" + SCHEMA, "docket.worker.shutdown-grace=1s", "docket.worker.lease=5m")
                .run()) {
            id = app.getBean(Docket.class).enqueue("slow", new Slow("report"));
            assertThat(SlowJobs.started.await(30, TimeUnit.SECONDS)).isTrue();
            SlowJobs.closing.set(true);
        }
        assertThat(SlowJobs.interruptedWhileClosing).as("interrupted by the shutdown, after the grace").isTrue();
        // Released by the shutdown itself: with a five-minute lease, a rescue could not have happened yet.
        JobInfo job = Docket.builder(TestPostgres.get().dataSource()).schema(SCHEMA).build().job(id).orElseThrow();
        assertThat(job.state()).isEqualTo(JobState.READY);
        assertThat(job.attempt()).as("the interrupted attempt is given back").isZero();
        assertThat(job.lockedBy()).isNull();
    }
}
