/**
 * Docket: a job queue in PostgreSQL. The API is {@code dev.docket}; everything under
 * {@code dev.docket.internal} may change in any release.
 *
 * <p>Jackson is part of the API (a custom {@code ObjectMapper}, {@code JsonNode} payloads and
 * upcasters), so it comes with this module; PgJDBC, cron-utils and SLF4J stay inside it. Micrometer
 * and the OpenTelemetry API are optional: only an application that has them gets metrics and traces.
 */
module dev.docket {
    requires transitive java.sql;
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires org.postgresql.jdbc;
    requires com.cronutils;
    requires org.slf4j;
    requires java.management;
    requires static micrometer.core;
    requires static io.opentelemetry.api;
    requires static io.opentelemetry.context;

    exports dev.docket;

    // Users' mappers may serialize the API's records (JobInfo, DeadJobReplay...) by reflection.
    opens dev.docket to com.fasterxml.jackson.databind;
}
