package dev.docket.examples.shop;

/** The confirmation mail job's payload. */
public record SendConfirmation(long orderId, String email) {
}
