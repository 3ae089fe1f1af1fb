package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRunEvent;
import io.locktable.spring.LockedRuns;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

/**
 * {@code @LockedRun} names with {@code #{...}} parts, on a lock table in memory: evaluated per call from the
 * arguments (by name, by position, and the bean), a lock per argument, a bad evaluated name failing its call, and the
 * declarations refused at startup (an expression that cannot be parsed, an expression in a {@code @LeaderOnly} name).
 * The meters of such runs are checked on the engine, in {@link LockedRunTest}.
 */
class LockedRunNameExpressionTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withBean(LockTable.class, () -> LockTable.inMemory("names-test").build())
            .withPropertyValues("locktable.lease-duration=2s");

    @Test
    void theNameIsEvaluatedFromTheArgumentsByNameByPositionAndFromTheBean() {
        runner.withPropertyValues("jobs.prefix=nightly")
                .withBean(Reports.class)
                .withBean(Events.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Reports reports = context.getBean(Reports.class);
                    assertThat(reports.byName("eu").orElseThrow().name()).isEqualTo("report-eu");
                    assertThat(reports.byName("us").orElseThrow().name()).isEqualTo("report-us");
                    assertThat(reports.byPosition("eu", 7).orElseThrow().name()).isEqualTo("position-eu-7");
                    assertThat(reports.ofTheBean("eu").orElseThrow().name())
                            .as("a placeholder resolved at startup, then the bean and an argument")
                            .isEqualTo("nightly-reports-EU");
                    assertThat(context.getBean(LockedRuns.class).names())
                            .as("the names as declared")
                            .contains(
                                    "report-#{#region}",
                                    "position-#{#p0}-#{#a1}",
                                    "nightly-#{#root.target.kind}-#{#region.toUpperCase()}");
                    Events events = context.getBean(Events.class);
                    await().atMost(WAIT).until(() -> events.of("report-us").size() == 2);
                    assertThat(events.of("report-us"))
                            .extracting(LockedRunEvent::kind)
                            .containsExactly(LockedRunEvent.Kind.STARTED, LockedRunEvent.Kind.ENDED);
                });
    }

    @Test
    void callsWithDifferentArgumentsRunTogetherAndCallsWithTheSameOneContend() {
        runner.withBean(Reports.class).withBean(Events.class).run(context -> {
            Reports reports = context.getBean(Reports.class);
            LockedRuns runs = context.getBean(LockedRuns.class);
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Optional<Lease>> eu =
                    CompletableFuture.supplyAsync(() -> reports.blocking("eu", entered, release));
            assertThat(entered.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            try {
                assertThat(runs.running())
                        .as("the evaluated name of the run in flight")
                        .extracting(status -> status.name())
                        .containsExactly("blocking-eu");

                CountDownLatch usEntered = new CountDownLatch(1);
                CountDownLatch usRelease = new CountDownLatch(0);
                assertThat(reports.blocking("us", usEntered, usRelease))
                        .as("another argument: another lock, taken while eu runs")
                        .hasValueSatisfying(lease -> assertThat(lease.name()).isEqualTo("blocking-us"));
                assertThat(usEntered.getCount()).isZero();

                CountDownLatch euAgain = new CountDownLatch(1);
                assertThat(reports.blocking("eu", euAgain, new CountDownLatch(0)))
                        .as("the same argument: the same lock, held by the run in flight, so skipped")
                        .isEmpty();
                assertThat(euAgain.getCount()).as("its body did not run").isEqualTo(1);
            } finally {
                release.countDown();
            }
            assertThat(eu.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isPresent();
            assertThat(runs.skipped("blocking-#{#region}"))
                    .as("counted under the name as declared")
                    .isEqualTo(1);
            Events events = context.getBean(Events.class);
            await().atMost(WAIT)
                    .until(() -> events.all.stream().anyMatch(event -> event.kind() == LockedRunEvent.Kind.SKIPPED));
            assertThat(events.all)
                    .filteredOn(event -> event.kind() == LockedRunEvent.Kind.SKIPPED)
                    .singleElement()
                    .satisfies(skipped -> {
                        assertThat(skipped.name())
                                .as("the event tells the evaluated name")
                                .isEqualTo("blocking-eu");
                        assertThat(skipped.skipReason()).contains(LockedRunEvent.SkipReason.BUSY);
                    });
            assertThat(reports.blocking("eu", new CountDownLatch(1), new CountDownLatch(0)))
                    .as("released when it returned")
                    .isPresent();
        });
    }

    @Test
    void aCallWhoseNameCannotBeALockNameThrowsAndDoesNotRun() {
        runner.withBean(Reports.class).run(context -> {
            Reports reports = context.getBean(Reports.class);
            String where = Reports.class.getName() + ".byName()";
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> reports.byName(null))
                    .withMessage("@LockedRun method " + where + ": in its lock name 'report-#{#region}', #{#region}"
                            + " gave null; the call did not run");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> reports.byName(""))
                    .withMessage("@LockedRun method " + where + ": in its lock name 'report-#{#region}', #{#region}"
                            + " gave an empty text; the call did not run");
            String tooLong = "x".repeat(2100);
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> reports.byName(tooLong))
                    .withMessageStartingWith("@LockedRun method " + where + ": its lock name 'report-#{#region}' gave"
                            + " 'report-" + tooLong + "', which cannot be a lock's name: lock name is too long")
                    .withMessageEndingWith("; the call did not run");
            assertThatIllegalArgumentException()
                    .isThrownBy(() -> reports.failing("eu"))
                    .withMessageStartingWith("@LockedRun method " + Reports.class.getName() + ".failing(): in its lock"
                            + " name 'failing-#{#region.noSuchMethod()}', #{#region.noSuchMethod()} failed: ");
            assertThat(reports.calls()).as("no body ran").isZero();
            assertThat(context.getBean(LockTable.class).heldLeases())
                    .as("no lock was taken")
                    .isEmpty();
            assertThat(context.getBean(LockedRuns.class).skipped("report-#{#region}"))
                    .as("a failed call is not a skipped one")
                    .isZero();
            assertThat(reports.byName("eu"))
                    .as("the next call with a good argument")
                    .isPresent();
        });
    }

    @Test
    void anExpressionThatCannotBeParsedFailsStartup() {
        runner.withBean(Unparsable.class).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .startsWith("@LockedRun method " + Unparsable.class.getName() + ".run() has the name"
                            + " 'report-#{#region +}', whose expression cannot be parsed: ");
            assertThat(analysis.getAction()).contains("\"report-#{#region}\"").contains("#p0");
        });
    }

    @Test
    void anUnclosedExpressionFailsStartup() {
        runner.withBean(Unclosed.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("@LockedRun method " + Unclosed.class.getName() + ".run() has the name"
                                + " 'report-#{#region', whose expression cannot be parsed: "));
    }

    @Test
    void anExpressionInALeaderOnlyNameFailsStartup() {
        runner.withBean(LeaderByArgument.class).run(context -> {
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("@LeaderOnly method " + LeaderByArgument.class.getName() + ".sweep() has the name"
                            + " 'sweeper-#{#region}', with a #{...} expression: a leadership's name is fixed at"
                            + " startup (one election per name), it cannot be read from a call's arguments.");
            assertThat(analysis.getAction()).contains("@LockedRun");
        });
    }

    /** Jobs whose lock names come from their arguments. */
    public static class Reports {
        private final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        public String getKind() {
            return "reports";
        }

        @LockedRun(name = "report-#{#region}")
        public Optional<Lease> byName(String region) {
            calls.incrementAndGet();
            return Lease.current();
        }

        @LockedRun("position-#{#p0}-#{#a1}")
        public Optional<Lease> byPosition(String region, int day) {
            return Lease.current();
        }

        @LockedRun("${jobs.prefix:daily}-#{#root.target.kind}-#{#region.toUpperCase()}")
        public Optional<Lease> ofTheBean(String region) {
            return Lease.current();
        }

        @LockedRun("failing-#{#region.noSuchMethod()}")
        public Optional<Lease> failing(String region) {
            calls.incrementAndGet();
            return Lease.current();
        }

        /** Tells it entered, then waits for the release. */
        @LockedRun("blocking-#{#region}")
        public Optional<Lease> blocking(String region, CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            try {
                release.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Lease.current();
        }
    }

    public static class Unparsable {
        @LockedRun("report-#{#region +}")
        public void run(String region) {}
    }

    public static class Unclosed {
        @LockedRun("report-#{#region")
        public void run(String region) {}
    }

    public static class LeaderByArgument {
        @LeaderOnly("sweeper-#{#region}")
        public void sweep(String region) {}
    }

    /** The run events of the context, in the order delivered. */
    public static class Events {
        final List<LockedRunEvent> all = new CopyOnWriteArrayList<>();

        @EventListener
        public void on(LockedRunEvent event) {
            all.add(event);
        }

        List<LockedRunEvent> of(String name) {
            return all.stream().filter(e -> name.equals(e.name())).toList();
        }
    }
}
