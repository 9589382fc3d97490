/**
 * The service-provider interface of the {@code docket} command: {@link dev.docket.server.spi.HandlerProvider}
 * lets {@code docket worker} run your handlers from a jar on its class path.
 */
package dev.docket.server.spi;
