package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * {@link LockTable#runAsLeader} in memory: how a term ends and hands the lock on. Leaders whose requests the network
 * loses, and a missing table, are in {@link LeaderTest} over an engine.
 */
class RunAsLeaderTest {

    private static final Duration LEASE = Duration.ofMillis(1500);
    private static final Duration POLL = LEASE.dividedBy(3);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    /** Closed after the {@code @AfterEach} method has stopped what uses it. */
    @AutoClose
    private final MemoryTables tables = new MemoryTables("RunAsLeader");

    private final LeaderThreads leaders = new LeaderThreads(LEASE);

    @AfterEach
    void close() throws Exception {
        leaders.close();
    }

    @Test
    void interruptingTheLeaderReleasesTheLeaseAndAnotherLeadsWithinOnePoll() throws Exception {
        String name = Contenders.lockName();
        LockTable first = tables.add();
        LockTable second = tables.add();
        CompletableFuture<Lease> firstLease = new CompletableFuture<>();
        CompletableFuture<Lease> secondLease = new CompletableFuture<>();
        AtomicReference<Throwable> firstEnded = new AtomicReference<>();
        Thread leader = leaders.lead(
                first,
                name,
                lease -> {
                    firstLease.complete(lease);
                    Thread.sleep(Long.MAX_VALUE);
                },
                firstEnded);
        Lease held = firstLease.get(5, TimeUnit.SECONDS);
        leaders.lead(
                second,
                name,
                lease -> {
                    secondLease.complete(lease);
                    Thread.sleep(Long.MAX_VALUE);
                },
                new AtomicReference<>());
        Thread.sleep(POLL.toMillis());

        long interrupted = System.nanoTime();
        leader.interrupt();
        leader.join(5_000);
        Lease next = secondLease.get(5, TimeUnit.SECONDS);
        Duration handover = Duration.ofNanos(System.nanoTime() - interrupted);

        assertThat(firstEnded.get()).isInstanceOf(InterruptedException.class);
        assertThat(held.whenEnded()).isCompletedWithValue(LeaseEnd.RELEASED);
        assertThat(handover).isLessThan(POLL.plus(MARGIN));
        assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    }

    @Test
    void workThatReturnsHandsTheLockOn() throws Exception {
        LockTable a = tables.add();
        String name = Contenders.lockName();
        AtomicReference<Lease> seen = new AtomicReference<>();

        a.runAsLeader(name, LEASE, lease -> seen.set(Lease.current().orElseThrow()));

        assertThat(seen.get().whenEnded()).isCompletedWithValue(LeaseEnd.RELEASED);
        assertThat(tables.ownerOf(name)).isNull();
        assertThat(Lease.current()).isEmpty();
    }

    @Test
    void workThatThrowsIsRethrownAndTheLockReleased() {
        LockTable a = tables.add();
        String name = Contenders.lockName();
        IllegalStateException failure = new IllegalStateException("sweeper failed");

        assertThatThrownBy(() -> a.runAsLeader(name, LEASE, lease -> {
                    throw failure;
                }))
                .isSameAs(failure);

        assertThat(tables.ownerOf(name)).isNull();
        assertThat(a.heldLeases()).isEmpty();
    }
}
