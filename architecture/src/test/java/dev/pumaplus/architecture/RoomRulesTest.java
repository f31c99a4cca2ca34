/*
 * The architecture's rules, held over the compiled classes of every module (the host, its SPI and wire
 * codec, every bundle): who may see whom along the request path. Runs with the other JUnit tests
 * (mvn test, script/test); docs/ARCHITECTURE.md names it.
 */
package dev.pumaplus.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import dev.pumaplus.host.queue.ProcessStatus;
import dev.pumaplus.host.queue.QueueReadout;
import dev.pumaplus.host.queue.QueueSnapshot;
import dev.pumaplus.host.queue.WebSocketReadout;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each test is one rule, stated in its name; a violation fails it with ArchUnit's list of the offending
 * dependencies (class, member, line). Production classes only: tests may reach anywhere in their own module.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RoomRulesTest {

    /** Every bundle's root package; each may see its own packages, the SPI and the wire codec. */
    private static final List<String> BUNDLES = List.of(
            "dev.pumaplus.protocol.h1", "dev.pumaplus.protocol.h2", "dev.pumaplus.protocol.h3",
            "dev.pumaplus.controller", "dev.pumaplus.actuator.fork", "dev.pumaplus.actuator.ractor",
            "dev.pumaplus.actuator.thread");

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.pumaplus");
    }

    @Test
    void importsEveryModule() {
        // a rule over no classes passes vacuously: make sure the host and each bundle were found
        for (String root : concat(BUNDLES, List.of("dev.pumaplus.host.queue", "dev.pumaplus.spi",
                "dev.pumaplus.wire"))) {
            if (classes.stream().noneMatch(c -> c.getPackageName().startsWith(root))) {
                throw new AssertionError("no classes imported from " + root);
            }
        }
    }

    @Test
    void bundlesSeeOnlyTheSpiAndTheWireCodec() {
        for (String bundle : BUNDLES) {
            noClasses().that().resideInAPackage(bundle + "..")
                    .should().dependOnClassesThat(resideInAPackage("dev.pumaplus..")
                            .and(not(resideInAnyPackage(bundle + "..", "dev.pumaplus.spi..", "dev.pumaplus.wire.."))))
                    .because("a bundle reaches the host only through the SPI's services and the wire codec, "
                            + "and other bundles not at all")
                    .check(classes);
        }
    }

    @Test
    void wireCodecDependsOnNothingOfOurs() {
        noClasses().that().resideInAPackage("dev.pumaplus.wire..")
                .should().dependOnClassesThat(resideInAPackage("dev.pumaplus..")
                        .and(not(resideInAPackage("dev.pumaplus.wire.."))))
                .because("the wire codec is defined once (docs/PROTOCOL.md) and shared by the host and bundles")
                .check(classes);
    }

    @Test
    void spiDependsOnNothingOfTheHost() {
        noClasses().that().resideInAPackage("dev.pumaplus.spi..")
                .should().dependOnClassesThat(resideInAPackage("dev.pumaplus.host.."))
                .because("bundles compile against the SPI; the host's rooms are private to it")
                .check(classes);
    }

    @Test
    void controlReadsTheQueueOnlyThroughQueueReadoutAndTheHubOnlyThroughWebSocketReadout() {
        noClasses().that().resideInAPackage("dev.pumaplus.host.control..")
                .should().dependOnClassesThat(resideInAPackage("dev.pumaplus.host.queue..")
                        .and(not(belongToAnyOf(QueueReadout.class, QueueSnapshot.class, ProcessStatus.class,
                                WebSocketReadout.class))))
                .because("the control room reports what the queue and the WebSocket hub count; it never enqueues, "
                        + "cancels, or touches the dispatcher, an exchange, a link or a held connection")
                .check(classes);
    }

    @Test
    void hostRoomsHaveNoCycles() {
        slices().matching("dev.pumaplus.host.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void measureAndFrameworkUseNoOtherRoom() {
        for (String room : List.of("measure", "framework")) {
            noClasses().that().resideInAPackage("dev.pumaplus.host." + room + "..")
                    .should().dependOnClassesThat(resideInAPackage("dev.pumaplus..")
                            .and(not(resideInAPackage("dev.pumaplus.host." + room + ".."))))
                    .because("the bottom rooms know numbers and the OSGi framework, not requests")
                    .check(classes);
        }
    }

    @Test
    void nothingButBootSeesBoot() {
        noClasses().that().resideInAPackage("dev.pumaplus..").and().resideOutsideOfPackage("dev.pumaplus.host.boot..")
                .should().dependOnClassesThat(resideInAPackage("dev.pumaplus.host.boot.."))
                .because("boot builds and wires every room; no room calls back up into it")
                .check(classes);
    }

    @Test
    void spiHoldsContractsOnly() {
        classes().that().resideInAPackage("dev.pumaplus.spi..")
                .should(beContract())
                .because("the SPI holds interfaces, records, enums and constants; logic lives in the host or "
                        + "in the bundle that uses it")
                .check(classes);
    }

    /**
     * A contract: an interface, record, enum or annotation, or a constants holder (static final fields, no
     * method but a private constructor). No exceptions.
     */
    private static ArchCondition<JavaClass> beContract() {
        return new ArchCondition<>("be an interface, record, enum or constants holder") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                if (!isContract(c)) {
                    events.add(SimpleConditionEvent.violated(c, c.getName()
                            + " has logic beyond a record's: move it out of the SPI"));
                }
            }
        };
    }

    private static boolean isContract(JavaClass c) {
        if (c.isInterface() || c.isRecord() || c.isEnum() || c.isAnnotation()
                || c.getSimpleName().equals("package-info")) {
            return true;
        }
        boolean constantsOnly = c.getFields().stream().allMatch(RoomRulesTest::isConstant);
        boolean noCode = c.getCodeUnits().stream().allMatch(RoomRulesTest::isPrivateConstructorOrInit);
        return constantsOnly && noCode;
    }

    private static boolean isConstant(JavaField f) {
        return f.getModifiers().containsAll(Set.of(JavaModifier.STATIC, JavaModifier.FINAL));
    }

    private static boolean isPrivateConstructorOrInit(JavaCodeUnit u) {
        return u.getName().equals("<clinit>")
                || u.isConstructor() && u.getModifiers().contains(JavaModifier.PRIVATE);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
