package dev.docket.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The one annotation an application test with {@code docket-spring-boot-starter} needs: a
 * {@link SpringBootTest} whose application runs on {@link TestPostgres} (embedded, or
 * {@code DOCKET_TEST_DATABASE_URL}; {@code spring.datasource.url}, {@code username} and
 * {@code password} are set to it) with Docket in a fresh schema of its own ({@code docket.schema}),
 * dropped when the context closes after the class.
 *
 * <p>By default no background worker runs ({@code docket.worker.enabled=false}), so that a test decides
 * when jobs run, on its own thread, with the application's handler beans:
 *
 * <pre>{@code
 * @DocketSpringBootTest
 * class CheckoutTest {
 *     @Autowired Docket docket;
 *     @Autowired DocketWorkers workers;
 *     @Autowired Checkout checkout;
 *
 *     @Test
 *     void confirmsTheOrder() {
 *         checkout.placeOrder("ada@example.com");
 *         assertEnqueued(docket, JobMatcher.kind("send_confirmation"));
 *         assertThat(workers.builder().runReadyJobs()).allMatch(JobRun::completed);
 *     }
 * }
 * }</pre>
 *
 * A test's own {@code properties} win over these settings.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest
@DirtiesContext
public @interface DocketSpringBootTest {

    /** Properties for the application, as {@link SpringBootTest#properties()}; they win over the test kit's. */
    @AliasFor(annotation = SpringBootTest.class, attribute = "properties")
    String[] properties() default {};

    /** The application's configuration classes, as {@link SpringBootTest#classes()}; default: found as Spring Boot does. */
    @AliasFor(annotation = SpringBootTest.class, attribute = "classes")
    Class<?>[] classes() default {};

    /** The web environment, as {@link SpringBootTest#webEnvironment()}. */
    @AliasFor(annotation = SpringBootTest.class, attribute = "webEnvironment")
    SpringBootTest.WebEnvironment webEnvironment() default SpringBootTest.WebEnvironment.MOCK;

    /** Whether the application's worker runs jobs in the background, as in production; default false. */
    boolean worker() default false;
}
