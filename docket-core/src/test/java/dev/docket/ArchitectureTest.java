package dev.docket;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The layers of docket-core that {@code docs/architecture.md} draws, checked against the compiled
 * classes: dependencies point one way, from the facade through the services down to the values and
 * the rules, and no two classes of different packages depend on each other.
 */
class ArchitectureTest {

    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.docket");

    /**
     * The top layer: the entry points ({@code Docket}, {@code DocketAdmin}, {@code Worker}) and the
     * package-private wiring behind them. Every other class of {@code dev.docket} is a value or an option.
     */
    private static final Set<String> FACADE = Set.of("Docket", "DocketOptions", "DocketAdmin", "Worker",
            "DocketWiring", "KindRegistry", "WorkerServices", "CallerThreadJobs", "Handlers", "Workflows",
            "DocketRouter", "RoutedWorkers", "QueueMove");

    private static final DescribedPredicate<JavaClass> IN_FACADE = DescribedPredicate.describe("in the facade",
            c -> c.getPackageName().equals("dev.docket") && FACADE.contains(topLevel(c).getSimpleName()));

    private static final DescribedPredicate<JavaClass> A_SERVICE = resideInAPackage("dev.docket.internal..")
            .and(not(resideInAPackage("dev.docket.internal.rules..")));

    /** The rules at the bottom (text, options, cron, the version-wait note) use nothing else of Docket. */
    @Test
    void theRulesUseNothingAboveThem() {
        noClasses().that().resideInAPackage("dev.docket.internal.rules..")
                .should().dependOnClassesThat(resideInAPackage("dev.docket..")
                        .and(not(resideInAPackage("dev.docket.internal.rules.."))))
                .check(CORE);
    }

    /** A value or option type of the API uses the rules, never a service or the facade. */
    @Test
    void theApisValuesUseNoServiceAndNoPartOfTheFacade() {
        noClasses().that(resideInAPackage("dev.docket").and(not(IN_FACADE)))
                .should().dependOnClassesThat(A_SERVICE.or(IN_FACADE))
                .check(CORE);
    }

    /** The services are below the facade: they take values and settings, never the facade itself. */
    @Test
    void theServicesNeverReachUpToTheFacade() {
        noClasses().that().resideInAPackage("dev.docket.internal..")
                .should().dependOnClassesThat(IN_FACADE)
                .check(CORE);
    }

    /** No two classes of different packages depend on each other (neither imports the other back). */
    @Test
    void noTwoClassesOfDifferentPackagesDependOnEachOther() {
        Set<String> edges = new TreeSet<>();
        for (JavaClass c : CORE) {
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass from = topLevel(d.getOriginClass());
                JavaClass to = topLevel(d.getTargetClass());
                if (to.getPackageName().startsWith("dev.docket") && !from.getPackageName().equals(to.getPackageName())) {
                    edges.add(from.getName() + " -> " + to.getName());
                }
            }
        }
        Set<String> mutual = new TreeSet<>();
        for (String edge : edges) {
            String[] ends = edge.split(" -> ");
            if (edges.contains(ends[1] + " -> " + ends[0]) && ends[0].compareTo(ends[1]) < 0) {
                mutual.add(ends[0] + " <-> " + ends[1]);
            }
        }
        assertThat(edges).as("the dependencies read").isNotEmpty();
        assertThat(mutual).as("classes of different packages that depend on each other").isEmpty();
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }
}
