package dev.docket.spring.app;

import dev.docket.JobContext;
import dev.docket.JobHandler;
import dev.docket.spring.DocketHandler;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A handler bean behind a transactional proxy that uses two other beans: it marks the order confirmed
 * and sends the mail, noting whether its transaction was open.
 */
@Component
@DocketHandler("send_confirmation")
public class SendConfirmationHandler implements JobHandler<SendConfirmation> {

    private final JdbcTemplate jdbc;
    private final Mailer mailer;

    public SendConfirmationHandler(JdbcTemplate jdbc, Mailer mailer) {
        this.jdbc = jdbc;
        this.mailer = mailer;
    }

    @Override
    @Transactional
    public void handle(SendConfirmation mail, JobContext ctx) {
        jdbc.update("UPDATE starter_orders SET confirmed = true WHERE id = ?", mail.orderId());
        String where = TransactionSynchronizationManager.isActualTransactionActive() ? "in a transaction" : "without one";
        mailer.send(mail.email(), "order " + mail.orderId() + " confirmed by job " + ctx.jobId() + ", " + where);
    }
}
