package dev.docket.test;

import dev.docket.Docket;
import java.util.Objects;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives a test class a real PostgreSQL ({@link TestPostgres}: embedded, or
 * {@code DOCKET_TEST_DATABASE_URL}), a fresh schema of its own, and a migrated {@link Docket} on it;
 * the Docket is closed and the schema dropped after the class. Test methods (and constructors) may
 * take a {@link Docket} or a {@link DataSource} parameter.
 *
 * <pre>{@code
 * @ExtendWith(DocketExtension.class)
 * class SignupTest {
 *     @Test
 *     void sendsTheWelcomeMail(Docket docket) { ... }
 * }
 *
 * // or, with builder settings, and the Docket at hand as a field:
 * @RegisterExtension
 * static final DocketExtension docket = DocketExtension.configure(b -> b.kind(SEND_EMAIL));
 * }</pre>
 *
 * <p>The schema lives for the whole class, so jobs enqueued by one test are there in the next: assert
 * on what a test enqueued by its kind, queue or payload (see {@link DocketAssertions}). A
 * {@code @Nested} class gets a schema of its own. Workers started on the Docket are stopped with it.
 */
public final class DocketExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DocketExtension.class);

    private final UnaryOperator<Docket.Builder> settings;
    /** The class's Docket while its tests run, for {@link #docket()}. */
    private volatile ClassDocket active;

    /** The extension with Docket's defaults, as {@code @ExtendWith(DocketExtension.class)} uses it. */
    public DocketExtension() {
        this(UnaryOperator.identity());
    }

    private DocketExtension(UnaryOperator<Docket.Builder> settings) {
        this.settings = settings;
    }

    /**
     * An extension whose Docket gets {@code settings} (kinds, retry policies...) before it is built; the
     * schema is always the class's own, whatever {@code settings} say.
     */
    public static DocketExtension configure(UnaryOperator<Docket.Builder> settings) {
        return new DocketExtension(Objects.requireNonNull(settings, "settings"));
    }

    /** The state of one test class: its schema and Docket. */
    private record ClassDocket(String schema, Docket docket) {
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        TestPostgres db = TestPostgres.get();
        String schema = db.newSchemaName();
        Docket docket = settings.apply(Docket.builder(db.dataSource())).schema(schema).build();
        docket.migrate();
        active = new ClassDocket(schema, docket);
        context.getStore(NAMESPACE).put(context.getRequiredTestClass(), active);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        ClassDocket state = context.getStore(NAMESPACE).remove(context.getRequiredTestClass(), ClassDocket.class);
        if (state != null) {
            active = null;
            state.docket().close();
            TestPostgres.get().dropSchema(state.schema());
        }
    }

    /** The Docket of the test class running now, from {@code context}. */
    private static ClassDocket current(ExtensionContext context) {
        for (ExtensionContext c = context; c != null; c = c.getParent().orElse(null)) {
            ExtensionContext.Store store = c.getStore(NAMESPACE);
            ClassDocket state = c.getTestClass().map(type -> store.get(type, ClassDocket.class)).orElse(null);
            if (state != null) {
                return state;
            }
        }
        throw new IllegalStateException("no Docket: DocketExtension has not run its beforeAll for this test class");
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == Docket.class || type == DataSource.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context)
            throws ParameterResolutionException {
        if (parameter.getParameter().getType() == DataSource.class) {
            return TestPostgres.get().dataSource();
        }
        return current(context).docket();
    }

    /**
     * The Docket of the test class, for an extension registered as a static field:
     * {@code docket.docket().enqueue(...)}.
     *
     * @throws IllegalStateException outside the class's tests (before its {@code beforeAll} or after its {@code afterAll})
     */
    public Docket docket() {
        return active().docket();
    }

    /** The test class's schema; see {@link #docket()}. */
    public String schema() {
        return active().schema();
    }

    private ClassDocket active() {
        ClassDocket state = active;
        if (state == null) {
            throw new IllegalStateException("no Docket: this DocketExtension is used only while its test class runs");
        }
        return state;
    }
}
