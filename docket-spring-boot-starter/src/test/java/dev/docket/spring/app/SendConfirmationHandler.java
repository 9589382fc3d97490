package dev.docket.spring.app;

import dev.docket.JobContext;
import dev.docket.JobHandler;
import dev.docket.spring.DocketHandler;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;

/** A handler bean: a transactional proxy that calls another bean. */
@Component
@DocketHandler("send_confirmation")
public class SendConfirmationHandler implements JobHandler<SendConfirmation> {

    private final Mailer mailer;

    public SendConfirmationHandler(Mailer mailer) {
        this.mailer = mailer;
    }

    @Override
    @Transactional
    public void handle(SendConfirmation mail, JobContext ctx) {
        mailer.send(mail.email(), "order " + mail.orderId() + " confirmed");
    }
}
