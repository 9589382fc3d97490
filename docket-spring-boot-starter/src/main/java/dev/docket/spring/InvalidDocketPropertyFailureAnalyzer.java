package dev.docket.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a refused {@code docket.*} property into Spring Boot's "APPLICATION FAILED TO START" report. */
class InvalidDocketPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDocketPropertyException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDocketPropertyException cause) {
        return new FailureAnalysis("Docket cannot start: " + cause.getMessage(),
                "Correct " + cause.property() + " in the application's configuration "
                        + "(its rules are in the property's description, e.g. in the IDE).", cause);
    }
}
