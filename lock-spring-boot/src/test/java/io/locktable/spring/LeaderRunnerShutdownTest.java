package io.locktable.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import io.locktable.spring.actuate.LocksEndpoint;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * How the runner stops and steps down without blocking the caller: every name in parallel, each going on when its
 * last call in flight ends, bounded by the shutdown timeout; and the endpoint's step-down answers without waiting for
 * a lease. Over an in-memory table: what is tested is the runner's threads, not a request.
 */
class LeaderRunnerShutdownTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration WITHIN = Duration.ofSeconds(10);

    /** A table of this test's own: in-memory locks stay until the JVM exits. */
    private final String table = "shutdown-" + UUID.randomUUID();

    private final List<LockTable> tables = new ArrayList<>();

    @AutoClose("shutdownNow")
    private final ExecutorService callers = Executors.newCachedThreadPool();

    @AfterEach
    void closeTables() {
        tables.forEach(LockTable::close);
    }

    private LeaderRunner leading(Duration shutdownTimeout, String... names) {
        return leading(shutdownTimeout, LEASE, names);
    }

    private LeaderRunner leading(Duration shutdownTimeout, Duration lease, String... names) {
        LockTable locks = LockTable.inMemory(table).build();
        tables.add(locks);
        LeaderRunner runner = new LeaderRunner(locks, shutdownTimeout);
        for (String name : names) {
            runner.register(name, lease);
        }
        runner.start();
        for (String name : names) {
            await().atMost(WITHIN).until(() -> runner.isLeader(name));
        }
        return runner;
    }

    /** A @LeaderOnly call of a name in flight on a caller's thread until released. */
    private final class Call {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final CompletableFuture<Boolean> admitted;

        Call(LeaderRunner runner, String name) {
            this(runner, name, LEASE);
        }

        Call(LeaderRunner runner, String name, Duration lease) {
            LeadershipGate leadership = runner.register(name, lease);
            admitted = CompletableFuture.supplyAsync(
                    () -> {
                        Optional<Lease> admittedWith = leadership.enter();
                        if (admittedWith.isEmpty()) {
                            return false;
                        }
                        try {
                            entered.countDown();
                            release.await();
                            return true;
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return true;
                        } finally {
                            leadership.exit();
                        }
                    },
                    callers);
            await().atMost(WITHIN).until(() -> entered.getCount() == 0 || admitted.isDone());
        }
    }

    @Test
    void stopReturnsAtOnceAndReleasesEachNameAsSoonAsItsOwnCallsEnded() {
        LeaderRunner runner = leading(Duration.ofSeconds(30), "stop-a", "stop-b");
        Lease a = runner.lease("stop-a").orElseThrow();
        Lease b = runner.lease("stop-b").orElseThrow();
        Call callA = new Call(runner, "stop-a");
        Call callB = new Call(runner, "stop-b");
        AtomicReference<String> calledBackOn = new AtomicReference<>();

        runner.stop(() -> calledBackOn.set(Thread.currentThread().getName()));

        assertThat(runner.isRunning()).isFalse();
        assertThat(calledBackOn.get())
                .as("stop(callback) did not wait for the calls")
                .isNull();
        assertThat(new Call(runner, "stop-a").admitted.join())
                .as("no new call once stopping")
                .isFalse();

        callA.release.countDown();
        assertThat(a.whenEnded()
                        .orTimeout(WITHIN.toMillis(), TimeUnit.MILLISECONDS)
                        .join())
                .as("released while the other name's call still runs")
                .isEqualTo(LeaseEnd.RELEASED);
        assertThat(b.isHeld()).isTrue();
        assertThat(calledBackOn.get()).isNull();

        callB.release.countDown();
        await().atMost(WITHIN).until(() -> calledBackOn.get() != null);
        assertThat(b.end()).contains(LeaseEnd.RELEASED);
        assertThat(calledBackOn.get())
                .as("called back by the end of the last release: no thread of the runner's own waited")
                .isNotEqualTo(Thread.currentThread().getName())
                .doesNotStartWith("locktable-stepdown-");
        assertThat(callA.admitted.join()).isTrue();
        assertThat(callB.admitted.join()).isTrue();
    }

    @Test
    void theShutdownTimeoutBoundsTheWaitForACallThatDoesNotEnd() {
        LeaderRunner runner = leading(Duration.ofSeconds(1), "stop-stuck");
        Lease lease = runner.lease("stop-stuck").orElseThrow();
        Call stuck = new Call(runner, "stop-stuck");
        CountDownLatch stopped = new CountDownLatch(1);

        runner.stop(stopped::countDown);

        await().atMost(WITHIN).until(() -> stopped.getCount() == 0);
        assertThat(stuck.admitted).as("the call still runs").isNotDone();
        assertThat(lease.end()).contains(LeaseEnd.RELEASED);
        stuck.release.countDown();
    }

    @Test
    void theSynchronousStopIsBoundedToo() {
        LeaderRunner runner = leading(Duration.ofSeconds(1), "stop-sync");
        Lease lease = runner.lease("stop-sync").orElseThrow();
        Call stuck = new Call(runner, "stop-sync");

        runner.stop();

        assertThat(lease.end()).contains(LeaseEnd.RELEASED);
        assertThat(stuck.admitted).isNotDone();
        stuck.release.countDown();
    }

    @Test
    void fromInsideACallYieldReturnsOnceReleasedAndYieldAsyncCompletesOnlyAfterThatCallEnded() throws Exception {
        LeaderRunner runner = leading(Duration.ofSeconds(30), "yield-sync", "yield-async");
        Lease syncLease = runner.lease("yield-sync").orElseThrow();
        Lease asyncLease = runner.lease("yield-async").orElseThrow();
        LeadershipGate sync = runner.register("yield-sync", LEASE);
        LeadershipGate async = runner.register("yield-async", LEASE);

        CompletableFuture<Boolean> releasedInsideTheCall = CompletableFuture.supplyAsync(
                () -> {
                    sync.enter().orElseThrow();
                    try {
                        runner.yield("yield-sync"); // its own call is not waited for
                        return syncLease.end().isPresent();
                    } finally {
                        sync.exit();
                    }
                },
                callers);
        assertThat(releasedInsideTheCall.get(WITHIN.toSeconds(), TimeUnit.SECONDS))
                .isTrue();

        AtomicReference<CompletableFuture<Void>> stepDown = new AtomicReference<>();
        CompletableFuture<Boolean> doneInsideTheCall = CompletableFuture.supplyAsync(
                () -> {
                    async.enter().orElseThrow();
                    try {
                        stepDown.set(runner.yieldAsync("yield-async").toCompletableFuture());
                        Thread.sleep(300);
                        return stepDown.get().isDone() || asyncLease.end().isPresent();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    } finally {
                        async.exit();
                    }
                },
                callers);
        assertThat(doneInsideTheCall.get(WITHIN.toSeconds(), TimeUnit.SECONDS)).isFalse();
        stepDown.get().get(WITHIN.toSeconds(), TimeUnit.SECONDS);
        assertThat(asyncLease.end()).contains(LeaseEnd.RELEASED);
        runner.stop();
    }

    @Test
    void theEndpointsStepDownAnswersWhileACallInFlightStillHoldsTheLease() {
        // a lease longer than the endpoint's wait: the step-down waits for the call at most one lease
        Duration lease10s = Duration.ofSeconds(10);
        LeaderRunner runner = leading(Duration.ofSeconds(30), lease10s, "step-down");
        Lease lease = runner.lease("step-down").orElseThrow();
        Call call = new Call(runner, "step-down", lease10s);
        LocksEndpoint endpoint = new LocksEndpoint(runner.lockTable(), runner);

        WebEndpointResponse<LocksEndpoint.LeaderDescriptor> accepted = endpoint.stepDown("step-down");

        assertThat(accepted.getStatus()).isEqualTo(202);
        assertThat(lease.isHeld()).as("the call in flight keeps it").isTrue();
        assertThat(new Call(runner, "step-down", lease10s).admitted.join()).isFalse();
        call.release.countDown();
        await().atMost(WITHIN).until(() -> lease.end().isPresent());
        assertThat(lease.end()).contains(LeaseEnd.RELEASED);
        assertThat(runner.isLeader("step-down")).isFalse();

        runner.stop();
    }

    @Test
    void theEndpointsStepDownAnswersOkOnceReleasedWhenNoCallIsInFlight() {
        LeaderRunner runner = leading(Duration.ofSeconds(30), "step-down-idle");
        Lease lease = runner.lease("step-down-idle").orElseThrow();

        WebEndpointResponse<LocksEndpoint.LeaderDescriptor> done =
                new LocksEndpoint(runner.lockTable(), runner).stepDown("step-down-idle");

        assertThat(done.getStatus()).isEqualTo(200);
        assertThat(done.getBody().state()).isEqualTo(LeadershipState.FOLLOWING);
        assertThat(lease.end()).contains(LeaseEnd.RELEASED);
        runner.stop(); // at once: it must not interrupt the release request of the step-down

        try (LockTable other = LockTable.inMemory(table).build()) {
            assertThat(other.tryAcquire("step-down-idle", LEASE))
                    .as("released in the table, not only locally")
                    .isPresent();
        }
    }
}
