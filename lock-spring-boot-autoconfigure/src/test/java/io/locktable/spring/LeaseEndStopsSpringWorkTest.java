package io.locktable.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.autoconfigure.LockTableBuilderCustomizer;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The lost-signal matrix of issue #34 for the Spring entry points: each way a {@code @LockedRun} or {@code
 * @LeaderOnly} method runs work under a lease (a plain call that asks to be interrupted, a {@code CompletableFuture},
 * a {@code Mono}), under each thing that could hold the stop up (a {@link LockTableListener} bean blocked on the
 * table's event thread, the table's completion executor blocked, the table's workers all taken by requests that
 * hang), in one application context on the real engine. Each case starts the work, puts the obstruction in place,
 * makes the member's writes fail so that its lease runs out, and checks that the work was stopped (interrupted,
 * cancelled, its subscription cancelled) while the obstruction was still in place, with the lease no longer held.
 * lock-core's entry points have theirs in {@code LeaseEndStopsWorkTest}. The module compiles no Kotlin, so a {@code
 * suspend} method (a {@code Mono} to the interceptor) has no case of its own here.
 */
@DynamoDbEngineTest
class LeaseEndStopsSpringWorkTest {

    /** The lease of every annotated method below. */
    static final Duration LEASE = Duration.ofSeconds(2);
    /**
     * How long the work may take to be stopped once the writes fail: one lease, and much room for a loaded machine
     * (the obstructions themselves hold for longer than this).
     */
    static final Duration STOPPED_WITHIN = LEASE.plusSeconds(15);
    /** How long a context may take to start its work, or an obstruction to be in place. */
    static final Duration SETUP = Duration.ofSeconds(20);
    /** More requests that hang than the table has workers (6 by default). */
    static final int HANGING_REQUESTS = 8;

    enum EntryPoint {
        LOCKED_RUN_INTERRUPT,
        LOCKED_RUN_FUTURE,
        LOCKED_RUN_MONO,
        LEADER_ONLY_INTERRUPT,
        LEADER_ONLY_FUTURE,
        LEADER_ONLY_MONO;

        boolean leaderOnly() {
            return name().startsWith("LEADER_ONLY");
        }
    }

    enum Obstruction {
        BLOCKED_LISTENER,
        BLOCKED_COMPLETION_EXECUTOR,
        BUSY_WORKERS
    }

    static List<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (EntryPoint entry : EntryPoint.values()) {
            for (Obstruction obstruction : Obstruction.values()) {
                cases.add(Arguments.of(entry, obstruction));
            }
        }
        return cases;
    }

    private final TestTable table;
    private final ClusterMember.Runs runs = new ClusterMember.Runs();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    /** Opens when the test ends: every obstruction waits on it. */
    private final CountDownLatch lift = new CountDownLatch(1);

    private final List<Disposable> subscriptions = new ArrayList<>();
    private ClusterMember member;

    LeaseEndStopsSpringWorkTest(TestTable table) {
        this.table = table;
    }

    @AfterEach
    void liftAndClose() {
        lift.countDown();
        subscriptions.forEach(Disposable::dispose);
        callers.shutdownNow(); // a call still blocked, after a failure
        if (member != null) {
            member.close();
        }
    }

    @ParameterizedTest(name = "{0} under {1}")
    @MethodSource("cases")
    void theWorkIsStoppedWhileTheObstructionIsInPlace(EntryPoint entry, Obstruction obstruction) throws Exception {
        String job = entry.name().toLowerCase().replace('_', '-') + "-" + UUID.randomUUID();
        member = ClusterMember.start(
                table,
                job + "-a",
                runs,
                job + "-sweeper",
                List.of(Seen.class, Work.class, BlockingListener.class, BlockableCompletions.class),
                "job.name=" + job);
        Work work = member.bean(Work.class);
        Seen seen = member.bean(Seen.class);
        if (entry.leaderOnly()) {
            await().atMost(SETUP).until(() -> member.runner().isLeader(job + "-leader"));
        }

        start(entry, work);
        Lease lease = seen.entered.get(SETUP.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(lease.isHeld()).as("the work runs under a held lease").isTrue();
        obstruct(obstruction, seen);
        assumeTrue(
                !seen.stopped.isDone() || seen.obstructedAtStop,
                "the lease ran out before the obstruction was in place (renewals late on a loaded machine):"
                        + " nothing to check");

        member.failUpdates(true); // no renewal reaches the table: the lease runs out
        String stop = seen.stopped.get(STOPPED_WITHIN.toMillis(), TimeUnit.MILLISECONDS);

        assertThat(seen.obstructedAtStop)
                .as(stop + " while the obstruction was in place")
                .isTrue();
        assertThat(seen.heldAtStop)
                .as("the lease was no longer held when the work was stopped")
                .isFalse();
        assertThat(lease.isHeld()).isFalse();
    }

    private void start(EntryPoint entry, Work work) {
        switch (entry) {
            case LOCKED_RUN_INTERRUPT -> callers.execute(work::lockedRun);
            case LOCKED_RUN_FUTURE -> work.lockedRunFuture();
            case LOCKED_RUN_MONO -> subscriptions.add(work.lockedRunMono().subscribe());
            case LEADER_ONLY_INTERRUPT -> callers.execute(work::leaderOnly);
            case LEADER_ONLY_FUTURE -> work.leaderOnlyFuture();
            case LEADER_ONLY_MONO -> subscriptions.add(work.leaderOnlyMono().subscribe());
        }
    }

    /** Tells the work how to see whether the obstruction is in place, then puts it in place. */
    private void obstruct(Obstruction obstruction, Seen seen) throws Exception {
        LockTable locks = member.bean(LockTable.class);
        switch (obstruction) {
            case BLOCKED_LISTENER -> {
                BlockingListener listener = member.bean(BlockingListener.class);
                seen.obstructed = () -> listener.blocking.getCount() == 0 && listener.returnedAt == 0;
                listener.until = lift;
                locks.tryAcquire(BlockingListener.PREFIX + UUID.randomUUID(), LEASE)
                        .orElseThrow(); // its event blocks the event thread: every later event waits behind it
                assertThat(listener.blocking.await(SETUP.toMillis(), TimeUnit.MILLISECONDS))
                        .as("the listener blocks the event thread")
                        .isTrue();
            }
            case BLOCKED_COMPLETION_EXECUTOR -> {
                CountDownLatch blocking = new CountDownLatch(1);
                seen.obstructed = () -> blocking.getCount() == 0 && lift.getCount() > 0;
                member.bean(BlockableCompletions.class).executor.execute(() -> {
                    blocking.countDown();
                    awaitQuietly(lift);
                });
                assertThat(blocking.await(SETUP.toMillis(), TimeUnit.MILLISECONDS))
                        .as("the completion executor's thread is taken")
                        .isTrue();
            }
            case BUSY_WORKERS -> {
                AtomicInteger hanging = member.hangRequestsOf("slow-", lift);
                seen.obstructed = () -> lift.getCount() > 0 && hanging.get() >= 6;
                for (int i = 0; i < HANGING_REQUESTS; i++) {
                    locks.tryAcquireAsync("slow-" + i + "-" + UUID.randomUUID(), LEASE);
                }
                await().atMost(SETUP).until(() -> hanging.get() >= 6); // every worker the table starts with
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the work saw: when it started, how it was stopped, whether the obstruction was still in place then and
     * whether its lease was still held. A bean of its own: the annotated bean is a proxy, whose fields are not the
     * target's.
     */
    public static class Seen {
        final CompletableFuture<Lease> entered = new CompletableFuture<>();
        final CompletableFuture<String> stopped = new CompletableFuture<>();
        volatile BooleanSupplier obstructed = () -> false;
        volatile boolean obstructedAtStop;
        volatile boolean heldAtStop;
        private volatile Lease lease;

        void enter() {
            lease = Lease.current().orElseThrow();
            entered.complete(lease);
        }

        void stop(String how) {
            obstructedAtStop = obstructed.getAsBoolean();
            heldAtStop = lease.isHeld();
            stopped.complete(how);
        }
    }

    /** The annotated methods, one per entry point; each runs until stopped, and tells {@link Seen}. */
    public static class Work {
        private final Seen seen;

        public Work(Seen seen) {
            this.seen = seen;
        }

        @LockedRun(name = "${job.name}-run", leaseDuration = "2s", interruptOnLoss = true)
        public void lockedRun() {
            blockUntilInterrupted();
        }

        @LockedRun(name = "${job.name}-run", leaseDuration = "2s")
        public CompletableFuture<Void> lockedRunFuture() {
            return future();
        }

        @LockedRun(name = "${job.name}-run", leaseDuration = "2s")
        public Mono<Void> lockedRunMono() {
            return mono();
        }

        @LeaderOnly(name = "${job.name}-leader", leaseDuration = "2s", interruptOnLoss = true)
        public void leaderOnly() {
            blockUntilInterrupted();
        }

        @LeaderOnly(name = "${job.name}-leader", leaseDuration = "2s")
        public CompletableFuture<Void> leaderOnlyFuture() {
            return future();
        }

        @LeaderOnly(name = "${job.name}-leader", leaseDuration = "2s")
        public Mono<Void> leaderOnlyMono() {
            return mono();
        }

        private void blockUntilInterrupted() {
            seen.enter();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                seen.stop("interrupted");
            }
        }

        private CompletableFuture<Void> future() {
            CompletableFuture<Void> work = new CompletableFuture<>();
            work.whenComplete((value, failure) -> {
                if (work.isCancelled()) {
                    seen.stop("cancelled");
                }
            });
            seen.enter();
            return work;
        }

        private Mono<Void> mono() {
            seen.enter();
            return Mono.<Void>never().doOnCancel(() -> seen.stop("its subscription cancelled"));
        }
    }

    /** A listener bean that blocks the table's event thread at the acquire of a lock of its prefix, once armed. */
    public static class BlockingListener implements LockTableListener {
        static final String PREFIX = "block-events-";
        final CountDownLatch blocking = new CountDownLatch(1);
        volatile CountDownLatch until;
        volatile long returnedAt;

        @Override
        public void onAcquired(Lease lease, boolean tookOver) {
            CountDownLatch latch = until;
            if (latch == null || !lease.name().startsWith(PREFIX)) {
                return;
            }
            blocking.countDown();
            awaitQuietly(latch);
            returnedAt = System.nanoTime();
        }
    }

    /** Gives the auto-configured table a completion executor of one thread, which a test can block. */
    public static class BlockableCompletions implements LockTableBuilderCustomizer, AutoCloseable {
        final ExecutorService executor = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "test-completions");
            thread.setDaemon(true);
            return thread;
        });

        @Override
        public void customize(LockTable.Builder builder) {
            builder.completionExecutor(executor);
        }

        @Override
        public void close() {
            executor.shutdownNow();
        }
    }
}
