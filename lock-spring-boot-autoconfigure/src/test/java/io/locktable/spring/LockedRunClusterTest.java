package io.locktable.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.Scheduled;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Two application contexts in one JVM, each with its own holder and client, sharing one table on the real engine:
 * a {@code @Scheduled(fixedRate) @LockedRun} job runs once per tick between them, a run longer than its lease keeps
 * it, and the run lock of an instance whose requests no longer reach the table (as after a kill) is taken over after
 * one lease while that run is told it lost it.
 */
@DynamoDbEngineTest
class LockedRunClusterTest {

    /** The job's period; its minHold is a little below it, as for ShedLock's lockAtLeastFor. */
    static final Duration RATE = Duration.ofMillis(1000);

    static final Duration MIN_HOLD = Duration.ofMillis(800);
    /**
     * How long the schedule is watched: 20 periods are enough to see both instances tick at their own phases many
     * times over, and to catch a second run in a period or a missed period, without a minute of test time.
     */
    static final Duration WINDOW = Duration.ofSeconds(20);
    /** Room for the engine's round trips, the scheduler and a loaded machine. */
    static final Duration MARGIN = Duration.ofMillis(1500);

    private final TestTable table;
    private final ClusterMember.Runs leaderRuns = new ClusterMember.Runs();

    @AutoClose("shutdownNow")
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final List<ClusterMember> members = new ArrayList<>();

    LockedRunClusterTest(TestTable table) {
        this.table = table;
    }

    @AfterEach
    void closeMembers() {
        members.forEach(ClusterMember::close);
    }

    private ClusterMember start(String lock, String holder, Class<?> job) {
        ClusterMember member = ClusterMember.start(
                table,
                holder,
                leaderRuns,
                lock + "-leader",
                List.of(job, RunLog.class),
                "job.name=" + lock,
                "job.rate=" + RATE.toMillis(),
                "job.min-hold=" + MIN_HOLD.toMillis() + "ms");
        members.add(member);
        return member;
    }

    @Test
    void twoContextsRunEachTickOfAFixedRateJobOnceBetweenThem() throws InterruptedException {
        String lock = "ticks";
        ClusterMember a = start(lock, "ticks-a", Ticker.class);
        ClusterMember b = start(lock, "ticks-b", Ticker.class);
        RunLog logA = a.bean(RunLog.class);
        RunLog logB = b.bean(RunLog.class);
        await().atMost(RATE.plus(MARGIN)).until(() -> logA.runs.size() + logB.runs.size() >= 1);
        long from = System.nanoTime();
        Thread.sleep(WINDOW.toMillis()); // the observation window of a schedule: what it shows is counted below
        long to = System.nanoTime();

        List<RunLog.Run> runs = new ArrayList<>();
        runs.addAll(logA.runs);
        runs.addAll(logB.runs);
        runs.removeIf(run -> run.startNanos() < from || run.startNanos() > to);
        runs.sort(Comparator.comparingLong(RunLog.Run::startNanos));
        long periods = WINDOW.toMillis() / RATE.toMillis();
        // never more than one run per period; fewer only when a loaded host delays an acquire, whose minHold then
        // reaches past the next tick (seen once at load 17: 16 of 20), so a quarter of the periods may be missed
        assertThat((long) runs.size())
                .as("one run per period, none twice")
                .isBetween(periods - periods / 4, periods + 1);
        for (int i = 1; i < runs.size(); i++) {
            RunLog.Run before = runs.get(i - 1);
            RunLog.Run run = runs.get(i);
            assertThat(run.fencingToken()).as("a new acquisition per run").isGreaterThan(before.fencingToken());
            assertThat(run.startNanos()).as("no overlap").isGreaterThanOrEqualTo(before.endNanos());
            long gapMillis = TimeUnit.NANOSECONDS.toMillis(run.startNanos() - before.startNanos());
            assertThat(gapMillis)
                    .as("runs " + (i - 1) + " and " + i + ": not twice in a period (minHold), no period missed")
                    .isBetween(MIN_HOLD.toMillis() - 100, RATE.plus(MARGIN).toMillis());
        }
        assertThat(runs).allSatisfy(run -> assertThat(run.heldAtEnd()).isTrue());
        // every tick of both instances in the window either ran or was skipped as busy: one of two ran
        long busy = logA.skippedBetween(from, to) + logB.skippedBetween(from, to);
        assertThat(runs.size() + busy).as("ticks of both instances").isBetween(2 * periods - 3, 2 * periods + 3);
        assertThat(logA.ended)
                .as("ended events")
                .allMatch(e -> e.outcome().orElseThrow() == LockedRunEvent.Outcome.COMPLETED);
    }

    @Test
    void aRunLongerThanItsLeaseKeepsItRenewedAndTheOtherInstanceSkips() throws Exception {
        String lock = "long-run";
        ClusterMember a = start(lock, "long-a", LongJob.class);
        ClusterMember b = start(lock, "long-b", LongJob.class);
        Duration runFor = LongJob.LEASE.multipliedBy(3).plusMillis(500);

        CompletableFuture<LongJob.Seen> running =
                CompletableFuture.supplyAsync(() -> a.bean(LongJob.class).run(runFor), threads);
        await().atMost(MARGIN).until(() -> !a.bean(LockedRuns.class).running().isEmpty());
        LockedRunStatus status = a.bean(LockedRuns.class).running().get(0);
        record Call(LongJob.Seen seen, long endNanos) {}
        List<Call> calls = new ArrayList<>();
        while (!running.isDone()) {
            LongJob.Seen other = b.bean(LongJob.class).run(Duration.ZERO);
            calls.add(new Call(other, System.nanoTime()));
            Thread.sleep(200);
        }
        LongJob.Seen seen = running.get();
        // a call of B that ended before A's body did found the lock held (a later one may have taken it)
        List<LongJob.Seen> others = calls.stream()
                .filter(call -> call.endNanos() < seen.endNanos())
                .map(Call::seen)
                .toList();

        assertThat(seen.heldAtEnd())
                .as("held at the end of a run of three leases and more")
                .isTrue();
        assertThat(seen.fencingToken()).isEqualTo(status.fencingToken());
        assertThat(Duration.between(seen.acquiredAt(), seen.renewedAt()))
                .as("renewed while the body ran")
                .isGreaterThan(LongJob.LEASE);
        assertThat(others)
                .as("the other instance skipped every call meanwhile")
                .isNotEmpty()
                .containsOnlyNulls();
        assertThat(others).as("several calls while A ran").hasSizeGreaterThan(5);
        assertThat(b.bean(LockedRuns.class).skipped(lock)).isGreaterThanOrEqualTo(others.size());
        LongJob.Seen after = b.bean(LongJob.class).run(Duration.ZERO);
        assertThat(after).as("released when the run returned").isNotNull();
        assertThat(after.fencingToken()).isGreaterThan(seen.fencingToken());
    }

    @Test
    void anInstanceWhoseRequestsStopIsTakenOverAfterOneLeaseAndItsRunIsToldAndFenced() throws Exception {
        String lock = "killed";
        ClusterMember a = start(lock, "killed-a", BlockingJob.class);
        ClusterMember b = start(lock, "killed-b", BlockingJob.class);
        CountDownLatch entered = new CountDownLatch(1);
        CompletableFuture<BlockingJob.Seen> running = CompletableFuture.supplyAsync(
                () -> {
                    BlockingJob.Seen seen = a.bean(BlockingJob.class).block(entered);
                    return new BlockingJob.Seen(
                            seen.lease(),
                            seen.interrupted(),
                            seen.heldAfterLoss(),
                            Thread.currentThread().isInterrupted());
                },
                threads);
        assertThat(entered.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(b.bean(BlockingJob.class).tryOnce()).as("busy while A runs").isNull();

        // as a kill looks to the table: no renewal, no release of A's ever arrives again
        a.failUpdates(true);
        long killed = System.nanoTime();
        Long taken = null;
        while (taken == null
                && System.nanoTime() - killed
                        < BlockingJob.LEASE.plus(MARGIN).multipliedBy(2).toNanos()) {
            Thread.sleep(100);
            taken = b.bean(BlockingJob.class).tryOnce();
        }
        Duration takeover = Duration.ofNanos(System.nanoTime() - killed);

        assertThat(taken).as("B took the lock over").isNotNull();
        assertThat(takeover).as("after about one lease").isLessThan(BlockingJob.LEASE.plus(MARGIN));
        BlockingJob.Seen seen = running.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(seen.interrupted()).as("interruptOnLoss").isTrue();
        assertThat(seen.heldAfterLoss()).as("Lease.current() shows the loss").isFalse();
        assertThat(seen.interruptedAfterCall())
                .as("the interrupt is cleared when the run ends")
                .isFalse();
        assertThat(taken).isGreaterThan(seen.lease().fencingToken());
        assertThatThrownBy(() -> ClusterMember.evaluateHeldCheck(b.client(), seen.lease()))
                .as("the lost run's fenced writes are refused")
                .isInstanceOf(ConditionalCheckFailedException.class);

        RunLog log = a.bean(RunLog.class);
        await().atMost(MARGIN).until(() -> !log.ended.isEmpty());
        assertThat(log.types()).containsSubsequence("started", "lost", "ended");
        assertThat(log.lost.get(0).leaseEnd().orElseThrow()).isIn(LeaseEnd.EXPIRED, LeaseEnd.LOST);
        assertThat(log.ended.get(0).outcome()).contains(LockedRunEvent.Outcome.LOST);
    }

    /** What a member's runs did and which run events it received. */
    public static class RunLog {
        record Run(String holder, long fencingToken, long startNanos, long endNanos, boolean heldAtEnd) {}

        record Skip(long nanos, LockedRunEvent.SkipReason reason) {}

        final List<Run> runs = new CopyOnWriteArrayList<>();
        final List<Skip> skips = new CopyOnWriteArrayList<>();
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<LockedRunEvent> lost = new CopyOnWriteArrayList<>();
        final List<LockedRunEvent> ended = new CopyOnWriteArrayList<>();

        @EventListener
        public void on(LockedRunEvent event) {
            switch (event.kind()) {
                case STARTED -> events.add("started");
                case SKIPPED ->
                    skips.add(new Skip(System.nanoTime(), event.skipReason().orElseThrow()));
                case LOST -> {
                    events.add("lost");
                    lost.add(event);
                }
                case ENDED -> {
                    events.add("ended");
                    ended.add(event);
                }
            }
        }

        List<String> types() {
            return events;
        }

        long skippedBetween(long from, long to) {
            return skips.stream()
                    .filter(s -> s.reason() == LockedRunEvent.SkipReason.BUSY)
                    .filter(s -> s.nanos() >= from && s.nanos() <= to)
                    .count();
        }
    }

    /** The scheduled job: a short body, every {@code job.rate}, kept at least {@code job.min-hold}. */
    public static class Ticker {
        private final RunLog log;
        private final String holder;

        public Ticker(RunLog log, Environment environment) {
            this.log = log;
            this.holder = environment.getRequiredProperty("locktable.holder");
        }

        @Scheduled(fixedRateString = "${job.rate}")
        @LockedRun(name = "${job.name}", leaseDuration = "2s", minHold = "${job.min-hold}")
        public void tick() throws InterruptedException {
            Lease lease = Lease.current().orElseThrow();
            long start = System.nanoTime();
            Thread.sleep(20); // some work
            log.runs.add(new RunLog.Run(holder, lease.fencingToken(), start, System.nanoTime(), lease.isHeld()));
        }
    }

    /** A run that takes as long as it is told, with a short lease. */
    public static class LongJob {
        static final Duration LEASE = Duration.ofSeconds(1);

        record Seen(long fencingToken, boolean heldAtEnd, Instant acquiredAt, Instant renewedAt, long endNanos) {}

        @LockedRun(name = "${job.name}", leaseDuration = "1s")
        public Seen run(Duration duration) {
            Lease lease = Lease.current().orElseThrow();
            try {
                Thread.sleep(duration.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new Seen(
                    lease.fencingToken(), lease.isHeld(), lease.acquiredAt(), lease.renewedAt(), System.nanoTime());
        }
    }

    /** A run that blocks until its lease is lost and it is interrupted; and a short call of the same lock. */
    public static class BlockingJob {
        static final Duration LEASE = Duration.ofSeconds(2);

        record Seen(Lease lease, boolean interrupted, boolean heldAfterLoss, boolean interruptedAfterCall) {}

        @LockedRun(name = "${job.name}", leaseDuration = "2s", interruptOnLoss = true)
        public Seen block(CountDownLatch entered) {
            Lease lease = Lease.current().orElseThrow();
            entered.countDown();
            boolean interrupted = false;
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException e) {
                interrupted = true;
                Thread.currentThread().interrupt(); // as code that passes the interrupt on does
            }
            return new Seen(lease, interrupted, Lease.current().orElseThrow().isHeld(), false);
        }

        @LockedRun(name = "${job.name}", leaseDuration = "2s")
        public Long tryOnce() {
            return Lease.current().orElseThrow().fencingToken();
        }
    }
}
