package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every store under a {@link LockTable} must do, as the user sees it through the public API: one contract, run
 * on the in-memory store ({@link InMemoryContractTest}) and on each engine ({@link EngineContractTest}, dynalite or
 * moto), so that the in-memory table users test with behaves as DynamoDB does. Real time, short leases, generous
 * bounds.
 */
abstract class LockTableContract {

    static final Duration LEASE = Duration.ofSeconds(2);

    private final List<LockTable> opened = new ArrayList<>();
    private final ExecutorService callers = Executors.newCachedThreadPool();
    final String name = "contract-" + UUID.randomUUID();

    /** A lock table over the store under test: another process on the same table each time it is called. */
    abstract LockTable.Builder tableBuilder();

    /** A process of the same table. */
    final LockTable newTable() {
        LockTable table = tableBuilder().build();
        opened.add(table);
        return table;
    }

    /** A process that acquires and then never renews, as one that crashed or froze: its clock never moves. */
    final LockTable newFrozenTable() {
        LockTable table = tableBuilder().clock(new ManualLockClock(0)).build();
        opened.add(table);
        return table;
    }

    /**
     * Whether the cases go through the non-blocking API ({@link LockTable#tryAcquireAsync}, {@link
     * LockTable#acquireAsync}, {@link LockTable#runAsLeaderAsync}), waited on here: the same contract on both APIs.
     */
    boolean async() {
        return false;
    }

    final Optional<Lease> tryAcquire(LockTable table, String lock, Duration lease) throws Exception {
        return async() ? awaited(table.tryAcquireAsync(lock, lease)) : table.tryAcquire(lock, lease);
    }

    final Lease acquire(LockTable table, String lock, Duration lease) throws Exception {
        return async() ? awaited(table.acquireAsync(lock, lease)) : table.acquire(lock, lease);
    }

    final Lease acquire(LockTable table, String lock, Duration lease, Duration maxWait) throws Exception {
        return async() ? awaited(table.acquireAsync(lock, lease, maxWait)) : table.acquire(lock, lease, maxWait);
    }

    final void runAsLeader(LockTable table, String lock, Duration lease, LeaderWork work) throws Exception {
        if (!async()) {
            table.runAsLeader(lock, lease, work);
            return;
        }
        awaited(table.runAsLeaderAsync(lock, lease, term -> {
            try {
                work.lead(term); // Lease.current() is bound during the call
                return CompletableFuture.completedFuture(null);
            } catch (Exception e) {
                return CompletableFuture.failedFuture(e);
            }
        }));
    }

    /** What the future completes with, or what it failed with, as the blocking call would return or throw it. */
    private static <T> T awaited(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(1, TimeUnit.MINUTES);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    @AfterEach
    void closeTables() {
        callers.shutdownNow();
        opened.forEach(LockTable::close);
    }

    @Test
    void aFreeLockIsAcquiredWithAFencingTokenAndShownAsStored() throws Exception {
        LockTable table = newTable();

        Lease lease = tryAcquire(table, name, LEASE).orElseThrow();

        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.fencingToken()).isPositive();
        assertThat(lease.owner()).startsWith(table.owner() + ".");
        LockRecord stored = newTable().read(name).orElseThrow();
        assertThat(stored.owner()).contains(lease.owner());
        assertThat(stored.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(stored.leaseDuration()).isEqualTo(LEASE);
    }

    @Test
    void aHeldLockIsRefusedToOtherProcessesAndToItsOwnProcess() throws Exception {
        LockTable holder = newTable();
        Lease lease = tryAcquire(holder, name, LEASE).orElseThrow();

        assertThat(tryAcquire(newTable(), name, LEASE)).isEmpty();
        assertThat(tryAcquire(holder, name, LEASE)).as("not reentrant").isEmpty();
        assertThat(lease.isHeld()).isTrue();
    }

    @Test
    void aReleasedLockGoesToTheNextWithAHigherTokenAndTheOldReleaseChangesNothing() throws Exception {
        Lease first = tryAcquire(newTable(), name, LEASE).orElseThrow();
        first.release();
        assertThat(first.isHeld()).isFalse();
        assertThat(first.whenEnded()).isCompletedWithValue(LeaseEnd.RELEASED);

        Lease second = tryAcquire(newTable(), name, LEASE).orElseThrow();
        first.release();

        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(tryAcquire(newTable(), name, LEASE)).isEmpty();
    }

    @Test
    void aLeaseRenewsItselfForLongerThanItsDuration() throws Exception {
        Lease lease = tryAcquire(newTable(), name, LEASE).orElseThrow();

        Thread.sleep(LEASE.multipliedBy(2).plusMillis(500).toMillis());

        assertThat(lease.isHeld()).isTrue();
        assertThat(tryAcquire(newTable(), name, LEASE)).isEmpty();
    }

    @Test
    void aProcessThatStoppedRenewingIsTakenOverAfterALeaseAndItsReleaseDisturbsNobody() throws Exception {
        Lease frozen = tryAcquire(newFrozenTable(), name, LEASE).orElseThrow();
        LockTable contender = newTable();

        Lease taken = acquire(contender, name, LEASE, LEASE.multipliedBy(4));

        assertThat(taken.fencingToken()).isEqualTo(frozen.fencingToken() + 1);
        assertThat(taken.tookOver()).isTrue();
        frozen.release(); // it still believes, on its stopped clock: the release is sent and must change nothing
        assertThat(newTable().read(name).orElseThrow().owner()).contains(taken.owner());
        assertThat(taken.isHeld()).isTrue();
    }

    @Test
    void aWaitingAcquireGetsTheLockSoonAfterItIsReleased() throws Exception {
        Lease held = tryAcquire(newTable(), name, LEASE).orElseThrow();
        LockTable waiting = newTable();
        Future<Lease> acquire = callers.submit(() -> acquire(waiting, name, LEASE));
        Thread.sleep(300);
        assertThat(acquire).isNotDone();

        held.release();

        Lease lease = acquire.get(LEASE.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
        assertThat(lease.fencingToken()).isEqualTo(held.fencingToken() + 1);
    }

    @Test
    void aWaitThatOutlastsNoHolderTimesOut() throws Exception {
        tryAcquire(newTable(), name, LEASE).orElseThrow();
        LockTable waiting = newTable();

        long start = System.nanoTime();
        assertThatThrownBy(() -> acquire(waiting, name, LEASE, Duration.ofMillis(700)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(name);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(LEASE);
    }

    @Test
    void aLeaderRunsItsWorkWithTheLeaseAsCurrentAndReleasesWhenItReturns() throws Exception {
        LockTable leader = newTable();
        CompletableFuture<Optional<Lease>> current = new CompletableFuture<>();

        runAsLeader(leader, name, LEASE, lease -> current.complete(Lease.current()));

        Lease lease = current.get(1, TimeUnit.SECONDS).orElseThrow();
        assertThat(lease.name()).isEqualTo(name);
        assertThat(lease.whenEnded()).isCompletedWithValue(LeaseEnd.RELEASED);
        assertThat(tryAcquire(newTable(), name, LEASE)).isPresent();
    }

    @Test
    void aLockedRunRunsOnceWithTheLeaseAsCurrentAndReleasesWhenItReturns() throws Exception {
        LockTable table = newTable();

        Optional<Long> token = table.runLocked(
                name, LEASE, Duration.ZERO, () -> Lease.current().orElseThrow().fencingToken());

        assertThat(token).hasValueSatisfying(value -> assertThat(value).isPositive());
        assertThat(Lease.current()).as("unbound after the run").isEmpty();
        assertThat(tryAcquire(newTable(), name, LEASE)).as("released").isPresent();
    }

    @Test
    void aLockedRunIsSkippedWhileAnotherProcessHoldsTheLock() throws Exception {
        tryAcquire(newTable(), name, LEASE).orElseThrow();
        List<String> ran = new ArrayList<>();

        Optional<String> result = newTable().runLocked(name, LEASE, Duration.ZERO, () -> {
            ran.add("ran");
            return "done";
        });

        assertThat(result).isEmpty();
        assertThat(ran).isEmpty();
    }

    @Test
    void aLockedRunKeepsTheLockForItsMinimumHoldAndThrowsWhatTheWorkThrew() throws Exception {
        LockTable table = newTable();
        Duration minHold = Duration.ofMillis(1_500);

        assertThatThrownBy(() -> table.runLocked(name, LEASE, minHold, () -> {
                    throw new IllegalStateException("the report failed");
                }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the report failed");

        assertThat(tryAcquire(newTable(), name, LEASE))
                .as("held for its minimum hold")
                .isEmpty();
        Thread.sleep(minHold.plusMillis(700).toMillis());
        assertThat(tryAcquire(newTable(), name, LEASE)).as("released after it").isPresent();
    }

    @Test
    void closingATableReleasesItsLeases() throws Exception {
        LockTable table = newTable();
        Lease lease = tryAcquire(table, name, LEASE).orElseThrow();

        table.close();

        assertThat(lease.whenEnded()).isCompletedWithValue(LeaseEnd.CLOSED);
        assertThat(tryAcquire(newTable(), name, LEASE)).isPresent();
        assertThatThrownBy(() -> tryAcquire(table, name, LEASE)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void verifyAcceptsTheTable() throws Exception {
        newTable().verify();
    }
}
