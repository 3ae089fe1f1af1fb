package io.locktable.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * Two or three application contexts in one JVM, each with its own holder and client, sharing one table on the real
 * engine: one leader at a time runs the {@code @LeaderOnly @Scheduled} method, and leadership moves on close, on a
 * yield and when the leader's renewals fail.
 */
@DynamoDbEngineTest
class LeaderOnlyClusterTest {

    static final Duration LEASE = Duration.ofSeconds(3);
    /** A waiting contender reads every third of the holder's lease (less jitter). */
    static final Duration POLL = LEASE.dividedBy(3);
    /** Room for the engine's round trips, the scheduler and a loaded machine. */
    static final Duration MARGIN = Duration.ofMillis(1500);

    private final TestTable table;
    private final ClusterMember.Runs runs = new ClusterMember.Runs();

    @AutoClose("shutdownNow")
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final List<ClusterMember> members = new ArrayList<>();

    LeaderOnlyClusterTest(TestTable table) {
        this.table = table;
    }

    @AfterEach
    void closeMembers() {
        members.forEach(ClusterMember::close);
    }

    private List<ClusterMember> start(String lock, int count) {
        List<ClusterMember> started = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            ClusterMember member = ClusterMember.start(table, lock + "-member-" + i, runs, lock);
            members.add(member);
            started.add(member);
        }
        return started;
    }

    private static ClusterMember awaitSingleLeader(List<ClusterMember> candidates, String lock, Duration within) {
        await().atMost(within).until(() -> leaders(candidates, lock).size() == 1);
        return leaders(candidates, lock).get(0);
    }

    private static List<ClusterMember> leaders(List<ClusterMember> candidates, String lock) {
        return candidates.stream().filter(n -> n.isLeader(lock)).toList();
    }

    private static List<ClusterMember> others(List<ClusterMember> all, ClusterMember one) {
        return all.stream().filter(n -> n != one).toList();
    }

    @Test
    void exactlyOneContextRunsTheScheduledMethodWithItsLeaseBound() throws InterruptedException {
        String lock = "sweep-one";
        List<ClusterMember> cluster = start(lock, 3);
        ClusterMember leader = awaitSingleLeader(cluster, lock, LEASE.plus(MARGIN));
        long skippedBeforeLeading = leader.runner().skipped(lock); // scheduled calls before the election ended
        await().atMost(MARGIN).until(() -> runs.of(leader).size() >= 5);
        List<ClusterMember> followers = others(cluster, leader);
        await().atMost(MARGIN)
                .until(() -> followers.stream().allMatch(f -> f.runner().skipped(lock) >= 3));

        assertThat(runs.all).extracting(ClusterMember.Runs.Run::holder).containsOnly(leader.holder);
        Lease lease = leader.runner().lease(lock).orElseThrow();
        assertThat(runs.all).allSatisfy(run -> {
            assertThat(run.held()).isTrue();
            assertThat(run.owner()).isEqualTo(lease.owner());
            assertThat(run.fencingToken()).isEqualTo(lease.fencingToken());
        });
        assertThat(leader.runner().skipped(lock)).isEqualTo(skippedBeforeLeading);

        // a public @LeaderOnly method: the bound lease is the leader's, and its heldCheck() holds on the engine
        assertThat(leader.sweeper().fencedCall(leader.client())).containsSame(lease);
        for (ClusterMember follower : followers) {
            assertThat(follower.sweeper().fencedCall(follower.client())).isEmpty();
            assertThat(follower.sweeper().block(new CountDownLatch(1), new CountDownLatch(0)))
                    .isNull();
            assertThat(follower.runner().status(lock)).hasValueSatisfying(status -> {
                assertThat(status.state()).isEqualTo(LeadershipState.FOLLOWING);
                assertThat(status.terms()).isZero();
            });
        }
        assertThat(leader.runner().status(lock)).hasValueSatisfying(status -> {
            assertThat(status.state()).isEqualTo(LeadershipState.LEADING);
            assertThat(status.terms()).isEqualTo(1);
            assertThat(status.lastError()).isEmpty();
        });
        assertThat(Lease.current())
                .as("nothing bound on the caller's thread after the call")
                .isEmpty();
    }

    @Test
    void closingTheLeaderHandsOverWithinAPoll() {
        String lock = "sweep-close";
        List<ClusterMember> cluster = start(lock, 3);
        ClusterMember leader = awaitSingleLeader(cluster, lock, LEASE.plus(MARGIN));
        Lease oldLease = leader.runner().lease(lock).orElseThrow();
        List<ClusterMember> rest = others(cluster, leader);

        leader.close();
        long closed = System.nanoTime();
        assertThat(oldLease.end()).contains(LeaseEnd.RELEASED);
        ClusterMember next = awaitSingleLeader(rest, lock, POLL.plus(MARGIN));
        Duration handover = Duration.ofNanos(System.nanoTime() - closed);
        assertThat(handover).as("a release, not a takeover after a whole lease").isLessThan(LEASE);

        Lease newLease = next.runner().lease(lock).orElseThrow();
        assertThat(newLease.fencingToken()).isGreaterThan(oldLease.fencingToken());
        assertThat(newLease.tookOver()).isFalse();
        assertThatThrownBy(() -> ClusterMember.evaluateHeldCheck(next.client(), oldLease))
                .isInstanceOf(ConditionalCheckFailedException.class);
        await().atMost(MARGIN).until(() -> !runs.of(next).isEmpty());

        // the old leader's events, in order, each seeing the state it announces, never on an election thread
        assertThat(leader.events().entries)
                .extracting(ClusterMember.EventLog.Entry::type, ClusterMember.EventLog.Entry::leaderInside)
                .containsExactly(tuple("granted", true), tuple("revoked", false));
        assertThat(leader.events().entries)
                .extracting(ClusterMember.EventLog.Entry::thread)
                .containsOnly("locktable-events");
        await().atMost(MARGIN).until(() -> next.events().types().equals(List.of("granted")));
        assertThat(next.events().entries.get(0).leaderInside()).isTrue();
    }

    @Test
    void closingLetsAScheduledCallInFlightFinishWithItsLeaseThenReleases() throws InterruptedException {
        String lock = "sweep-scheduled-stop";
        List<ClusterMember> cluster = start(lock, 2);
        ClusterMember leader = awaitSingleLeader(cluster, lock, LEASE.plus(MARGIN));
        ClusterMember follower = others(cluster, leader).get(0);
        Lease lease = leader.runner().lease(lock).orElseThrow();
        AtomicLong releasedAt = new AtomicLong();
        lease.whenEnded().thenRun(() -> releasedAt.set(System.nanoTime()));

        ClusterMember.SlowCall call = leader.sweeper().armSlowCall(Duration.ofMillis(1500));
        assertThat(call.entered.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        leader.close(); // Boot's scheduler stops first and lets the call finish; then the runner releases

        assertThat(call.endedNanos).as("the call ran to its end").isPositive();
        assertThat(call.heldAtEnd).isTrue();
        assertThat(lease.end()).contains(LeaseEnd.RELEASED);
        assertThat(releasedAt.get()).as("released after the call ended").isGreaterThanOrEqualTo(call.endedNanos);
        long closed = System.nanoTime();
        await().atMost(POLL.plus(MARGIN)).until(() -> follower.isLeader(lock));
        assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(LEASE);
        assertThat(LeaderRunner.PHASE).isLessThan(ThreadPoolTaskScheduler.DEFAULT_PHASE);
    }

    @Test
    void aLeaderWhoseRenewalsFailIsReplacedAfterItsLease() {
        String lock = "sweep-blocked";
        List<ClusterMember> cluster = start(lock, 2);
        ClusterMember leader = awaitSingleLeader(cluster, lock, LEASE.plus(MARGIN));
        ClusterMember follower = others(cluster, leader).get(0);
        Lease stale = leader.runner().lease(lock).orElseThrow();

        leader.failUpdates(true);
        long blocked = System.nanoTime();
        await().atMost(LEASE.multipliedBy(2).plus(POLL).plus(MARGIN)).until(() -> follower.isLeader(lock));
        Duration replaced = Duration.ofNanos(System.nanoTime() - blocked);

        // a takeover waits out a whole lease after the last renewal it saw, which was at most a poll before
        assertThat(replaced).isGreaterThanOrEqualTo(LEASE.minus(POLL).minusMillis(200));
        assertThat(leader.isLeader(lock))
                .as("the stale leader stopped believing first")
                .isFalse();
        assertThat(stale.end()).hasValueSatisfying(end -> assertThat(end).isIn(LeaseEnd.EXPIRED, LeaseEnd.LOST));
        Lease lease = follower.runner().lease(lock).orElseThrow();
        assertThat(lease.tookOver()).isTrue();
        assertThat(lease.fencingToken()).isGreaterThan(stale.fencingToken());
        assertThatThrownBy(() -> ClusterMember.evaluateHeldCheck(follower.client(), stale))
                .isInstanceOf(ConditionalCheckFailedException.class);

        await().atMost(MARGIN).until(() -> leader.events().types().equals(List.of("granted", "revoked")));
        assertThat(leader.runner().status(lock)).hasValueSatisfying(status -> {
            assertThat(status.state()).isEqualTo(LeadershipState.FOLLOWING);
            assertThat(status.lastError()).hasValueSatisfying(e -> assertThat(e).contains("UpdateItem blocked"));
            assertThat(status.lastErrorAt()).isPresent();
        });
        long staleRuns = runs.of(leader).stream()
                .filter(run -> run.fencingToken() == stale.fencingToken())
                .count();
        assertThat(runs.of(leader))
                .hasSize((int) staleRuns)
                .allSatisfy(run -> assertThat(run.held()).isTrue());
        await().atMost(MARGIN).until(() -> !runs.of(follower).isEmpty());
        leader.failUpdates(false);
    }

    @Test
    void yieldStepsDownAndSitsOutACoolDown() {
        String lock = "sweep-yield";
        List<ClusterMember> cluster = start(lock, 2);
        ClusterMember leader = awaitSingleLeader(cluster, lock, LEASE.plus(MARGIN));
        ClusterMember follower = others(cluster, leader).get(0);

        long yielded = System.nanoTime(); // before the call: its cool-down starts inside it, at the step-down
        leader.runner().yield(lock);
        assertThat(leader.isLeader(lock)).isFalse();
        await().atMost(POLL.plus(MARGIN)).until(() -> follower.isLeader(lock));
        await().atMost(MARGIN).until(() -> leader.events().types().equals(List.of("granted", "revoked")));
        assertThat(leader.events().entries.get(1).leaderInside()).isFalse();

        // the follower goes away; the one that yielded stays out until its cool-down of two leases is over
        follower.close();
        Duration coolDown = LEASE.multipliedBy(2);
        Duration left = coolDown.minusNanos(System.nanoTime() - yielded).minusMillis(500);
        if (!left.isNegative()) {
            await().during(left).atMost(left.plus(MARGIN)).until(() -> !leader.isLeader(lock));
        }
        await().atMost(coolDown.plus(POLL).plus(MARGIN)).until(() -> leader.isLeader(lock));
        assertThat(Duration.ofNanos(System.nanoTime() - yielded)).isGreaterThanOrEqualTo(coolDown);
        assertThat(leader.runner().status(lock).orElseThrow().terms()).isEqualTo(2);
        assertThatThrownBy(() -> leader.runner().yield("no-such-leadership"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(lock);
    }

    @Test
    void closingWaitsForCallsInFlightThenReleases() throws Exception {
        String lock = "sweep-stop";
        List<ClusterMember> cluster = start(lock, 2);
        ClusterMember leader = awaitSingleLeader(cluster, lock, LEASE.plus(MARGIN));
        ClusterMember follower = others(cluster, leader).get(0);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);

        // threads of the test's own: the common pool may have a single thread (2 cores), which the call would hold
        CompletableFuture<Boolean> call = CompletableFuture.supplyAsync(
                () -> {
                    try {
                        return leader.sweeper().block(entered, release);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);
        assertThat(entered.await(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        CompletableFuture<Void> closing = CompletableFuture.runAsync(leader::close, threads);

        // while the call runs, the closing leader admits no new call and keeps its lease
        await().atMost(MARGIN).until(() -> !leader.runner().isRunning());
        assertThat(leader.sweeper().fencedCall(leader.client())).isEmpty();
        await().during(POLL.plus(Duration.ofMillis(500)))
                .atMost(LEASE)
                .until(() -> !closing.isDone() && !follower.isLeader(lock));

        release.countDown();
        assertThat(call.get(MARGIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        closing.get(LEASE.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
        long closed = System.nanoTime();
        await().atMost(POLL.plus(MARGIN)).until(() -> follower.isLeader(lock));
        assertThat(Duration.ofNanos(System.nanoTime() - closed)).isLessThan(LEASE);
        assertThat(Optional.ofNullable(leader.events().types())).contains(List.of("granted", "revoked"));
    }
}
