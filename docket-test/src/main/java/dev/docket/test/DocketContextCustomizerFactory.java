package dev.docket.test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Applies {@link DocketSpringBootTest} to the test's application context: the test database, a fresh
 * schema, the worker setting, and the schema's drop when the context closes. Registered in
 * {@code META-INF/spring.factories}; does nothing for other tests.
 */
class DocketContextCustomizerFactory implements ContextCustomizerFactory {

    /** Spring's name for the property source of a test's inlined {@code properties}. */
    private static final String INLINED = "Inlined Test Properties";

    @Override
    public ContextCustomizer createContextCustomizer(Class<?> testClass, List<ContextConfigurationAttributes> attributes) {
        MergedAnnotation<DocketSpringBootTest> annotation = MergedAnnotations
                .from(testClass, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY).get(DocketSpringBootTest.class);
        return annotation.isPresent()
                ? new Customizer(TestPostgres.get().newSchemaName(), annotation.getBoolean("worker")) : null;
    }

    /** One per test class: its schema makes each class's context its own (and {@code @DirtiesContext} closes it). */
    private record Customizer(String schema, boolean worker) implements ContextCustomizer {

        @Override
        public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
            TestPostgres db = TestPostgres.get();
            Map<String, Object> properties = new LinkedHashMap<>();
            properties.put("spring.datasource.url", db.jdbcUrl());
            if (db.username() != null) {
                properties.put("spring.datasource.username", db.username());
            }
            if (db.password() != null) {
                properties.put("spring.datasource.password", db.password());
            }
            properties.put("docket.schema", schema);
            properties.put("docket.worker.enabled", worker);
            MutablePropertySources sources = context.getEnvironment().getPropertySources();
            MapPropertySource kit = new MapPropertySource("docket-test", properties);
            if (sources.contains(INLINED)) {
                sources.addAfter(INLINED, kit);
            } else {
                sources.addFirst(kit);
            }
            // Registered before every bean, so destroyed after them all: after the worker has stopped.
            if (context.getBeanFactory() instanceof DefaultSingletonBeanRegistry registry) {
                registry.registerDisposableBean("docketTestSchema", () -> TestPostgres.get().dropSchema(schema));
            }
        }
    }
}
