package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.test.LockTableTestMode;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.AliasFor;

/**
 * How {@code @LockedRun} declarations are read at startup: default names, placeholders, composed annotations, and the
 * refused ones (the same rules as {@code @LeaderOnly}'s, and never both on one method). The lock table is in memory;
 * the test mode ignored without the test support is in {@link LockTableConnectionTest}, on the engine.
 */
class LockedRunDeclarationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withPropertyValues(LockTableTestMode.ON, "locktable.lease-duration=2s");

    @Test
    void namesDefaultToTheClassAndMethodAndPlaceholdersResolve() {
        runner.withPropertyValues("jobs.report=nightly-report")
                .withBean(Named.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(LockedRuns.class).names())
                            .containsExactly("Named.byDefault", "composed-report", "nightly-report");
                    Lease lease = context.getBean(Named.class).composed();
                    assertThat(lease.duration())
                            .as("the composed annotation's lease")
                            .isEqualTo(Duration.ofSeconds(3));
                    assertThat(lease.name()).isEqualTo("composed-report");
                });
    }

    @Test
    void aPrimitiveReturnTypeFailsStartup() {
        runner.withBean(Primitive.class).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo(
                            "@LockedRun method " + Primitive.class.getName() + ".count() returns the primitive int: a"
                                    + " call skipped because another instance holds the lock has no value to return.");
            assertThat(analysis.getAction()).startsWith("Declare it to return void, a wrapper type such as Integer");
        });
    }

    @Test
    void aMethodWhoseWorkRunsAfterItReturnedFailsStartup() {
        runner.withBean(Deferred.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("@LockedRun method " + Deferred.class.getName()
                                + ".run() returns java.util.concurrent.Future: the lock is held and the"
                                + " lease bound only while the method runs"));
    }

    @Test
    void bothAnnotationsOnOneMethodFailStartup() {
        runner.withBean(Both.class).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .contains(Both.class.getName() + ".run() carries both @")
                    .contains("@LeaderOnly")
                    .contains("@LockedRun");
            assertThat(analysis.getAction()).startsWith("Keep one:");
        });
    }

    @Test
    void aMinHoldThatIsNotADurationFailsStartup() {
        runner.withBean(BadMinHold.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .isEqualTo("@LockedRun method " + BadMinHold.class.getName()
                                + ".run() has minHold 'soon', which is not a duration."));
    }

    @Test
    void aLeaseOutOfRangeFailsStartup() {
        runner.withBean(ShortLease.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .isEqualTo("@LockedRun method " + ShortLease.class.getName()
                                + ".run() has leaseDuration 100ms, outside the range a lease may have, 1s to 1d."));
    }

    /** A composed annotation of the application's, naming the lock through an alias. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
    @LockedRun(leaseDuration = "3s", minHold = "0s")
    @interface ReportRun {
        @AliasFor(annotation = LockedRun.class, attribute = "name")
        String value();
    }

    /** Public so that a proxy in a {@code FilteredClassLoader} can extend it ({@link LockTableConnectionTest}). */
    public static class Named {
        @LockedRun
        public void byDefault() {}

        @LockedRun("${jobs.report}")
        public void byPlaceholder() {}

        @ReportRun("composed-report")
        public Lease composed() {
            return Lease.current().orElseThrow();
        }
    }

    static class Primitive {
        @LockedRun
        public int count() {
            return 1;
        }
    }

    /** A bare Future: nothing tells when its work completes (a CompletableFuture is held until it completes). */
    static class Deferred {
        @LockedRun
        public Future<String> run() {
            return CompletableFuture.completedFuture("done");
        }
    }

    static class Both {
        @LockedRun
        @LeaderOnly("both")
        public void run() {}
    }

    static class BadMinHold {
        @LockedRun(minHold = "soon")
        public void run() {}
    }

    static class ShortLease {
        @LockedRun(leaseDuration = "100ms")
        public void run() {}
    }
}
