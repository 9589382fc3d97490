package dev.docket.spring;

/**
 * A {@code docket.*} property whose value Docket refuses; fails the application's startup, reported
 * by {@link InvalidDocketPropertyFailureAnalyzer} with the property and the rule it broke.
 */
public class InvalidDocketPropertyException extends IllegalArgumentException {

    private final String property;

    /** {@code property} had {@code value}, which a builder refused with {@code cause} (whose message says the rule). */
    public InvalidDocketPropertyException(String property, Object value, IllegalArgumentException cause) {
        super("invalid value for " + property + " (" + value + "): " + cause.getMessage(), cause);
        this.property = property;
    }

    /** The property's full name, such as {@code docket.worker.lease}. */
    public String property() {
        return property;
    }
}
