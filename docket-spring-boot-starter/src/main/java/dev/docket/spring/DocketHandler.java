package dev.docket.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Registers a bean that implements {@link dev.docket.JobHandler JobHandler&lt;T&gt;} as the handler of
 * jobs of one kind, on the worker the starter runs (and on {@link DocketWorkers#builder()}).
 *
 * <pre>{@code
 * @Component
 * @DocketHandler("send_email")
 * class SendEmailHandler implements JobHandler<SendEmail> {
 *     private final Mailer mailer;                       // any other bean
 *     SendEmailHandler(Mailer mailer) { this.mailer = mailer; }
 *     @Override public void handle(SendEmail email, JobContext ctx) { mailer.send(email, ctx.jobId()); }
 * }
 * }</pre>
 *
 * <p>The payload type is the bean's type argument {@code T}. When a {@link dev.docket.JobKind} bean
 * has this kind's name, the handler is registered with that kind instead (its payload type, retry
 * policy, lease, timeout and upcasters). Also allowed on a {@code @Bean} method that returns a
 * handler whose type argument the method's return type states. Handlers are ordinary beans: they may
 * be {@code @Transactional} and use any other bean. A kind may have one handler; a second fails startup.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DocketHandler {

    /** The kind of jobs this bean handles; must follow Docket's kind rules (printable, 1 to 255 characters). */
    String value();
}
