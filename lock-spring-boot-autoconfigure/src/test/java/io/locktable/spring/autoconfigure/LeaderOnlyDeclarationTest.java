package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.test.LockTableTestMode;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.reactivestreams.Publisher;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AliasFor;
import org.springframework.util.ClassUtils;

/**
 * How {@code @LeaderOnly} declarations are read at startup: names, placeholders, leases, and the refused ones. The lock
 * table is in memory.
 */
class LeaderOnlyDeclarationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class))
            .withPropertyValues(LockTableTestMode.ON, "locktable.lease-duration=2s");

    @Test
    void namesDefaultToTheApplicationNameAndPlaceholdersResolve() {
        runner.withPropertyValues("spring.application.name=orders", "jobs.report=nightly-report")
                .withBean(Named.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LeaderRunner.class).names())
                            .containsExactly("nightly-report", "orders", "weekly");
                });
    }

    @Test
    void aComposedAnnotationIsFoundAtStartupAndChecksItsCalls() {
        runner.withBean(Composed.class).run(context -> {
            assertThat(context).hasNotFailed();
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            assertThat(leaders.names()).containsExactly("nightly-report", "weekly-report");

            Composed composed = context.getBean(Composed.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> leaders.isLeader("nightly-report"));
            Lease lease = leaders.lease("nightly-report").orElseThrow();
            assertThat(lease.duration()).as("the composed annotation's lease").isEqualTo(Duration.ofSeconds(3));
            assertThat(composed.nightly()).isEqualTo(lease.fencingToken());
            leaders.yield("nightly-report");
            assertThat(composed.nightly()).as("skipped").isNull();
        });
    }

    @Test
    void aComposedAnnotationIsCheckedLikeLeaderOnly() {
        runner.withBean(ComposedPrimitive.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .contains(ComposedPrimitive.class.getName() + ".count() returns the primitive int"));
    }

    @Test
    void aPrimitiveReturnTypeFailsStartup() {
        runner.withBean(Primitive.class).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("@LeaderOnly method " + Primitive.class.getName() + ".count() returns the primitive"
                            + " int: a call skipped on an instance that does not lead has no value to return.");
            assertThat(analysis.getAction())
                    .isEqualTo("Declare it to return void, a wrapper type such as Integer (null when skipped) or an"
                            + " Optional (empty when skipped).");
        });
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deferredWork")
    void aMethodWhoseWorkRunsAfterItReturnedFailsStartup(Class<?> bean, String what) {
        runner.withBean(bean).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .startsWith("@LeaderOnly method " + bean.getName() + ".run() " + what + ": the leadership is"
                            + " checked and the lease bound only while the method runs");
            assertThat(analysis.getAction()).startsWith("Declare it to return void, a value or an Optional");
        });
    }

    static Stream<Arguments> deferredWork() {
        return Stream.of(
                Arguments.of(ReturnsFuture.class, "returns java.util.concurrent.Future"),
                Arguments.of(
                        ReturnsFlowPublisher.class, "returns the reactive type java.util.concurrent.Flow$Publisher"));
    }

    /**
     * A reactive method whose library the application lacks: Reactor (hidden) and Kotlin's coroutines (not on the test
     * class path); their types are made up, and told by their names.
     */
    @ParameterizedTest(name = "{1}")
    @MethodSource("deferredWorkOfMissingLibraries")
    void aReactiveMethodWithoutItsLibraryFailsStartup(ClassLoader loader, String what, String needs) {
        runner.withClassLoader(loader)
                .withBean(MissingLibraryTypes.JOB, ClassUtils.resolveClassName(MissingLibraryTypes.JOB, loader))
                .run(context -> {
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .isEqualTo("@LeaderOnly method " + MissingLibraryTypes.JOB + ".run() " + what
                                    + ", which needs " + needs + " on the class path for the leadership to be held"
                                    + " until its work completes.");
                    assertThat(analysis.getAction()).startsWith("Add " + needs + " to the application");
                });
    }

    static Stream<Arguments> deferredWorkOfMissingLibraries() {
        String reactor = "Reactor (io.projectreactor:reactor-core)";
        return Stream.of(
                Arguments.of(
                        MissingLibraryTypes.returning("reactor.core.publisher.Mono"),
                        "returns the reactive type reactor.core.publisher.Mono",
                        reactor),
                Arguments.of(
                        MissingLibraryTypes.returning("reactor.core.publisher.Flux"),
                        "returns the reactive type reactor.core.publisher.Flux",
                        reactor),
                Arguments.of(
                        MissingLibraryTypes.suspendFunction(),
                        "is a Kotlin suspend function",
                        "the coroutines' Reactor bridge (org.jetbrains.kotlinx:kotlinx-coroutines-reactor)"));
    }

    @Test
    void aMissingNameFailsStartup() {
        runner.withBean(Unnamed.class).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains(Unnamed.class.getName() + ".run()")
                    .contains("spring.application.name, which names it by default, is not set");
            assertThat(analysis.getAction()).contains("@LeaderOnly(\"order-sweeper\")");
        });
    }

    @Test
    void anUnresolvedPlaceholderFailsStartup() {
        runner.withBean(Unresolved.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .contains("has name '${jobs.missing}', whose placeholder does not resolve"));
    }

    @Test
    void aNameTooLongForALockKeyFailsStartupNamingTheMethod() {
        runner.withBean(TooLong.class)
                .withPropertyValues("jobs.long=" + "x".repeat(2044))
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith(
                                "@LeaderOnly method " + TooLong.class.getName() + ".run() has a name that cannot be")
                        .contains("its key LOCK#<name> has 2049 bytes, DynamoDB allows 2048"));
    }

    @Test
    void aLeaseOutOfRangeFailsStartup() {
        runner.withBean(ShortLease.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .isEqualTo("@LeaderOnly method " + ShortLease.class.getName()
                                + ".run() has leaseDuration 100ms, outside the range a lease may have, 1s to 1d."));
    }

    @Test
    void twoLeasesForOneNameFailStartup() {
        runner.withBean(TwoLeases.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("The leadership 'shared' has two lease durations: "));
    }

    @Test
    void aFinalMethodFailsStartup() {
        runner.withBean(FinalMethod.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .contains(".run() is final: the proxy that checks the leadership cannot intercept it"));
    }

    @Test
    void declarationsAreCheckedEvenWithoutARunner() {
        runner.withPropertyValues("locktable.leader.enabled=false")
                .withBean(Primitive.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .contains("returns the primitive int"));
    }

    @Test
    void aLockTableIsAlwaysThere() {
        runner.run(context -> assertThat(context).hasSingleBean(LockTable.class));
    }

    static class Named {
        @LeaderOnly
        public void byApplicationName() {}

        @LeaderOnly("${jobs.report}")
        public void byPlaceholder() {}

        @LeaderOnly(name = "weekly", leaseDuration = "${jobs.lease:2s}")
        public void byName() {}
    }

    /** A composed annotation of the application's, naming the leadership through an alias. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
    @LeaderOnly(leaseDuration = "3s")
    @interface ReportJob {
        @AliasFor(annotation = LeaderOnly.class, attribute = "name")
        String value();
    }

    /** A composed annotation with a fixed name, itself composed of the one above. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @ReportJob("weekly-report")
    @interface WeeklyReport {}

    static class Composed {
        @ReportJob("nightly-report")
        public Long nightly() {
            return Lease.current().orElseThrow().fencingToken();
        }

        @WeeklyReport
        public void weekly() {}
    }

    static class ComposedPrimitive {
        @ReportJob("composed-primitive")
        public int count() {
            return 1;
        }
    }

    static class Primitive {
        @LeaderOnly("primitive")
        public int count() {
            return 1;
        }
    }

    static class ReturnsFlowPublisher {
        @LeaderOnly("deferred")
        public Flow.Publisher<String> run() {
            return subscriber -> {};
        }
    }

    static class ReturnsFuture {
        @LeaderOnly("deferred")
        public Future<String> run() {
            return CompletableFuture.completedFuture("done");
        }
    }

    static class ReturnsPublisher {
        @LeaderOnly("deferred")
        public Publisher<String> run() {
            return subscriber -> {};
        }
    }

    static class Unnamed {
        @LeaderOnly
        public void run() {}
    }

    static class TooLong {
        @LeaderOnly("${jobs.long}")
        public void run() {}
    }

    static class Unresolved {
        @LeaderOnly("${jobs.missing}")
        public void run() {}
    }

    static class ShortLease {
        @LeaderOnly(name = "short", leaseDuration = "100ms")
        public void run() {}
    }

    static class TwoLeases {
        @LeaderOnly(name = "shared", leaseDuration = "2s")
        public void one() {}

        @LeaderOnly(name = "shared", leaseDuration = "3s")
        public Optional<String> two() {
            return Optional.empty();
        }
    }

    static class FinalMethod {
        @LeaderOnly("final")
        public final void run() {}
    }
}
