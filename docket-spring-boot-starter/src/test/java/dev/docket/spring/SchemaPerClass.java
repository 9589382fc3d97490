package dev.docket.spring;

import dev.docket.test.TestPostgres;
import java.util.UUID;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Drops a test class's schema after everything else: declared before {@code @SpringBootTest} (with
 * {@code @DirtiesContext}), its after-all runs once the application context, and its worker, are closed.
 */
final class SchemaPerClass implements AfterAllCallback {

    /** A new schema name, unique to one test class. */
    static String newName() {
        return "spring_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        String schema = (String) context.getRequiredTestClass().getDeclaredField("SCHEMA").get(null);
        TestPostgres.get().execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    }
}
