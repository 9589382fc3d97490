package dev.docket.spring;

import dev.docket.Docket;

/**
 * A bean that adjusts the {@link Docket.Builder} before the starter builds the {@code Docket}, after the
 * {@code docket.*} properties are applied: for what properties cannot say, such as an
 * {@code objectMapper} or periodic jobs built in code. Customizers run in {@code @Order}.
 */
@FunctionalInterface
public interface DocketCustomizer {

    void customize(Docket.Builder builder);
}
