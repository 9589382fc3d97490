package dev.docket.examples.shop;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An embedded PostgreSQL for the example when {@code spring.datasource.url} is not set, so that it
 * runs with nothing installed; with the property set, Spring Boot's own DataSource is used.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${spring.datasource.url:}'.isEmpty()")
class ShopDatabase {

    @Bean(destroyMethod = "close")
    EmbeddedPostgres embeddedPostgres() throws IOException {
        return EmbeddedPostgres.builder().start();
    }

    @Bean
    DataSource dataSource(EmbeddedPostgres postgres) {
        return DataSourceBuilder.create().url(postgres.getJdbcUrl("postgres", "postgres"))
                .username("postgres").password("postgres").build();
    }
}
