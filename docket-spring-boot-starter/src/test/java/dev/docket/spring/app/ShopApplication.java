package dev.docket.spring.app;

import dev.docket.test.TestPostgres;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** A small application that uses the starter; the tests place orders in Spring-managed transactions. */
@SpringBootApplication
public class ShopApplication {

    /** The tests' PostgreSQL (embedded, or DOCKET_TEST_DATABASE_URL); the starter uses whatever DataSource the application has. */
    @Bean(destroyMethod = "close")
    DataSource dataSource() {
        TestPostgres db = TestPostgres.get();
        db.execute("CREATE TABLE IF NOT EXISTS starter_orders (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
                + "email text NOT NULL, confirmed boolean NOT NULL DEFAULT false)");
        return db.pool(20);
    }
}
