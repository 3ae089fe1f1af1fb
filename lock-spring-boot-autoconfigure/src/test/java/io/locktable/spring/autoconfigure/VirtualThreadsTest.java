package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.test.LockTableTestMode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * With {@code spring.threads.virtual.enabled=true} Spring Boot schedules {@code @Scheduled} methods on virtual
 * threads: {@code @LeaderOnly} and {@code @LockedRun} work there as on platform threads (the lease bound as {@link
 * Lease#current()}, fencing tokens from the table), and the shutdown order is unchanged: a leader's call or a locked
 * run in flight when the context closes keeps its lease until it returns, and the lease is released right after. Java 21 and later
 * (CI runs it on Java 25), as virtual threads need them. The lock table is in memory: what is tested is the threads.
 */
@EnabledForJreRange(min = JRE.JAVA_21)
class VirtualThreadsTest {

    /**
     * Runs a call that blocks until the runs in flight end (a stop, a close) on a thread of its own: on the JDK's
     * common pool (the default of {@code runAsync}; a single worker on two cores with Java 25) it would hold the worker
     * that the lock table's futures complete on, and the run it waits for could never start.
     */
    private static final java.util.concurrent.Executor OWN_THREAD =
            task -> new Thread(task, "test-blocking-call").start();

    private static final Duration WITHIN = Duration.ofSeconds(15);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    TaskSchedulingAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withUserConfiguration(Scheduling.class)
            .withBean(Jobs.class)
            .withPropertyValues(
                    "spring.threads.virtual.enabled=true", LockTableTestMode.ON, "locktable.lease-duration=2s");

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {}

    /** The scheduled jobs: what each call saw, and one leader call that the test holds up as the context closes. */
    static class Jobs {
        final List<Observed> leaderCalls = new CopyOnWriteArrayList<>();
        final List<Observed> lockedRuns = new CopyOnWriteArrayList<>();
        final AtomicReference<CountDownLatch> holdNextLeaderCall = new AtomicReference<>();
        final CountDownLatch heldCallEntered = new CountDownLatch(1);
        final AtomicReference<CountDownLatch> holdNextRun = new AtomicReference<>();
        final AtomicReference<Lease> heldRunLease = new AtomicReference<>();

        @Scheduled(fixedDelay = 50)
        @LeaderOnly(name = "vt-sweeper")
        public void sweep() throws InterruptedException {
            leaderCalls.add(Observed.now());
            CountDownLatch hold = holdNextLeaderCall.getAndSet(null);
            if (hold != null) {
                heldCallEntered.countDown();
                hold.await();
            }
        }

        @Scheduled(fixedDelay = 50)
        @LockedRun(name = "vt-report", leaseDuration = "2s")
        public void report() throws InterruptedException {
            lockedRuns.add(Observed.now());
            CountDownLatch hold = holdNextRun.getAndSet(null);
            if (hold != null) {
                heldRunLease.set(Lease.current().orElseThrow());
                hold.await();
            }
        }

        // accessors, as the bean in the context is a class-based proxy whose own fields are empty

        public List<Observed> leaderCalls() {
            return leaderCalls;
        }

        public List<Observed> lockedRuns() {
            return lockedRuns;
        }

        public void holdNextLeaderCall(CountDownLatch hold) {
            holdNextLeaderCall.set(hold);
        }

        public boolean awaitHeldCall(Duration within) throws InterruptedException {
            return heldCallEntered.await(within.toMillis(), TimeUnit.MILLISECONDS);
        }

        public void holdNextRun(CountDownLatch hold) {
            holdNextRun.set(hold);
        }

        public Lease heldRunLease() {
            return heldRunLease.get();
        }
    }

    /** What a call saw: the current lease (or null) and whether it ran on a virtual thread. */
    record Observed(Lease lease, boolean virtual) {
        static Observed now() {
            return new Observed(Lease.current().orElse(null), isVirtual(Thread.currentThread()));
        }
    }

    @Test
    void leaderOnlyAndLockedRunCallsRunOnVirtualThreadsWithTheirLeaseBound() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            Jobs jobs = context.getBean(Jobs.class);
            await().atMost(WITHIN)
                    .until(() ->
                            jobs.leaderCalls().size() >= 3 && jobs.lockedRuns().size() >= 3);

            assertThat(jobs.leaderCalls()).allSatisfy(call -> {
                assertThat(call.virtual()).as("scheduled on a virtual thread").isTrue();
                assertThat(call.lease()).isNotNull();
                assertThat(call.lease().name()).isEqualTo("vt-sweeper");
            });
            assertThat(jobs.lockedRuns()).allSatisfy(run -> {
                assertThat(run.virtual()).isTrue();
                assertThat(run.lease()).isNotNull();
                assertThat(run.lease().name()).isEqualTo("vt-report");
            });
            assertThat(jobs.leaderCalls().stream().map(Observed::lease).distinct())
                    .as("one term: one lease for every leader call")
                    .hasSize(1);
            assertThat(context.getBean(LeaderRunner.class).isLeader("vt-sweeper"))
                    .isTrue();
        });
    }

    @Test
    void aLeaderCallInFlightKeepsItsLeaseWhileTheContextClosesAndItIsReleasedRightAfter() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            await().atMost(WITHIN).until(() -> leaders.isLeader("vt-sweeper"));
            Lease lease = leaders.lease("vt-sweeper").orElseThrow();
            CountDownLatch hold = new CountDownLatch(1);
            jobs.holdNextLeaderCall(hold);
            assertThat(jobs.awaitHeldCall(WITHIN)).isTrue();

            assertHeldWhileClosingAndReleasedAfter(context, lease, hold);
        });
    }

    @Test
    void aLockedRunInFlightKeepsItsLeaseWhileTheContextClosesAndItIsReleasedRightAfter() {
        runner.run(context -> {
            Jobs jobs = context.getBean(Jobs.class);
            CountDownLatch hold = new CountDownLatch(1);
            jobs.holdNextRun(hold);
            await().atMost(WITHIN).until(() -> jobs.heldRunLease() != null);

            assertHeldWhileClosingAndReleasedAfter(context, jobs.heldRunLease(), hold);
        });
    }

    /**
     * Closes the context while a call holds {@code lease}: the close waits for the call (up to the shutdown timeout),
     * the lease staying held all along; once the call is let go, the close ends and the lease is released.
     */
    private static void assertHeldWhileClosingAndReleasedAfter(
            ConfigurableApplicationContext context, Lease lease, CountDownLatch hold) throws Exception {
        CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close, OWN_THREAD);
        await().during(Duration.ofMillis(800)).atMost(WITHIN).until(() -> lease.isHeld() && !closing.isDone());

        hold.countDown();
        closing.get(WITHIN.toSeconds(), TimeUnit.SECONDS);
        assertThat(lease.whenEnded().get(WITHIN.toSeconds(), TimeUnit.SECONDS)).isEqualTo(LeaseEnd.RELEASED);
    }

    /** {@code Thread.isVirtual()}, which the Java 17 release flag does not let this module name directly. */
    private static boolean isVirtual(Thread thread) {
        try {
            return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }
}
