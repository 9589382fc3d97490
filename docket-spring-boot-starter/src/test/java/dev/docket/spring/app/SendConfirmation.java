package dev.docket.spring.app;

/** The payload of a confirmation mail job. */
public record SendConfirmation(long orderId, String email) {
}
