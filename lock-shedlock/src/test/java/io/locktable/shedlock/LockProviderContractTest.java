package io.locktable.shedlock;

import static io.locktable.shedlock.Instances.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseLostException;
import io.locktable.LockRecord;
import io.locktable.shedlock.Instances.Instance;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.EngineAssumptions;
import io.locktable.test.EngineCapability;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The cases of ShedLock's provider contract (its {@code AbstractLockProviderIntegrationTest} and {@code
 * AbstractExtensibleLockProviderIntegrationTest}), written for LockTable's semantics, against the real engine: each
 * instance is a provider over a lock table with a client of its own. ShedLock's "times out after lockAtMostFor" case
 * becomes "a holder that dies is taken over after its lease": a live holder renews its lease, however long it runs.
 */
@DynamoDbEngineTest
class LockProviderContractTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration LONG_LEASE = Duration.ofSeconds(30);
    private static final Duration BOUND = Duration.ofSeconds(15);

    @AutoClose
    private final Instances instances;

    private final String name = Instances.lockName();

    private final DynamoDbEngine engine;
    private final TestTable table;

    LockProviderContractTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.instances = new Instances(engine, table);
    }

    @Test
    void locksAndUnlocks() {
        Instance a = instances.add();

        SimpleLock lock =
                a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow();

        assertThat(a.holds(name)).isTrue();
        LockRecord stored = a.locks().read(name).orElseThrow();
        assertThat(stored.leaseDuration()).as("lockAtMostFor is the lease").isEqualTo(LONG_LEASE);
        lock.unlock();
        assertThat(a.locks().read(name).orElseThrow().owner())
                .as("released at once")
                .isEmpty();
    }

    @Test
    void refusesWhileHeldToAnotherInstanceAndToItsOwnHolder() {
        Instance a = instances.add();
        Instance b = instances.add();
        SimpleLock lock =
                a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow();

        assertThat(b.provider().lock(config(name, LONG_LEASE, Duration.ZERO))).isEmpty();
        assertThat(a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)))
                .as("not reentrant")
                .isEmpty();

        lock.unlock();
        SimpleLock taken =
                b.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow();
        assertThat(b.holds(name)).isTrue();
        taken.unlock();
    }

    @Test
    void twoNamesAreIndependentLocks() {
        Instance a = instances.add();
        SimpleLock first =
                a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow();
        SimpleLock second = a.provider()
                .lock(config(name + "-2", LONG_LEASE, Duration.ZERO))
                .orElseThrow();

        first.unlock();
        second.unlock();
        assertThat(a.holds(name)).isFalse();
        assertThat(a.holds(name + "-2")).isFalse();
    }

    @Test
    void locksAgainRightAfterEachUnlock() {
        Instance a = instances.add();
        Instance b = instances.add();
        for (int i = 0; i < 10; i++) {
            Instance taker = i % 2 == 0 ? a : b;
            Optional<SimpleLock> lock = taker.provider().lock(config(name, LONG_LEASE, Duration.ZERO));
            assertThat(lock).as("round %d", i).isPresent();
            assertThat(a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)))
                    .isEmpty();
            lock.orElseThrow().unlock();
        }
    }

    @Test
    void unlockedLockCannotBeUnlockedOrExtendedAgain() {
        Instance a = instances.add();
        SimpleLock lock =
                a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow();
        lock.unlock();

        assertThatThrownBy(lock::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(name);
        assertThatThrownBy(() -> lock.extend(LONG_LEASE, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void lockAtMostForOutsideTheLeaseRangeIsRefusedNamingTheLock() {
        Instance a = instances.add();

        assertThatThrownBy(() -> a.provider().lock(config(name, Duration.ofMillis(50), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock '" + name + "'")
                .hasMessageContaining("PT0.05S")
                .hasMessageContaining("PT1S to PT24H");
        assertThatThrownBy(() -> a.provider().lock(config(name, Duration.ofDays(2), Duration.ZERO)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lock '" + name + "'");
        assertThat(a.locks().read(name)).as("nothing written").isEmpty();
    }

    @Test
    void lockAtLeastForKeepsTheLockHeldAfterAnEarlyUnlockThenReleasesIt() {
        Instance a = instances.add();
        Instance b = instances.add();
        Duration atLeast = Duration.ofSeconds(2);
        long askedAt = System.nanoTime();
        SimpleLock lock =
                a.provider().lock(config(name, Duration.ofSeconds(3), atLeast)).orElseThrow();

        lock.unlock();

        assertThat(a.provider().keptForMinimumHold()).isEqualTo(1);
        assertThat(b.provider().lock(config(name, LONG_LEASE, Duration.ZERO))).isEmpty();
        assertThat(a.provider().lock(config(name, LONG_LEASE, Duration.ZERO))).isEmpty();
        AtomicReference<SimpleLock> taken = new AtomicReference<>();
        await().pollInSameThread()
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    b.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).ifPresent(taken::set);
                    return taken.get() != null;
                });
        assertThat(Duration.ofNanos(System.nanoTime() - askedAt))
                .as("not before lockAtLeastFor")
                .isGreaterThanOrEqualTo(atLeast);
        assertThat(a.provider().keptForMinimumHold()).isZero();
        taken.get().unlock();
    }

    @Test
    void unlockAfterLockAtLeastForReleasesAtOnce() {
        Instance a = instances.add();
        Instance b = instances.add();
        SimpleLock lock = a.provider()
                .lock(config(name, Duration.ofSeconds(3), Duration.ofSeconds(1)))
                .orElseThrow();
        await().pollDelay(Duration.ofMillis(1100)).atMost(BOUND).until(() -> true);

        lock.unlock();

        assertThat(a.provider().keptForMinimumHold()).isZero();
        b.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow().unlock();
    }

    @Test
    void closingTheProviderReleasesTheLeasesKeptForLockAtLeastFor() {
        Instance a = instances.add();
        Instance b = instances.add();
        SimpleLock lock = a.provider()
                .lock(config(name, LONG_LEASE, Duration.ofSeconds(20)))
                .orElseThrow();
        lock.unlock();
        assertThat(a.holds(name)).isTrue();

        a.provider().close();

        assertThat(a.holds(name)).isFalse();
        b.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow().unlock();
        assertThatThrownBy(() -> a.provider().lock(config(name + "-2", LONG_LEASE, Duration.ZERO)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void extendReturnsANewLockThatStaysHeldPastTheFirstLease() {
        Instance a = instances.add();
        Instance b = instances.add();
        SimpleLock lock = a.provider().lock(config(name, LEASE, Duration.ZERO)).orElseThrow();

        SimpleLock extended = lock.extend(Duration.ofSeconds(3), Duration.ZERO).orElseThrow();
        SimpleLock again = extended.extend(Duration.ofSeconds(3), Duration.ZERO)
                .orElseThrow()
                .extend(Duration.ofSeconds(3), Duration.ZERO)
                .orElseThrow();

        await().during(LEASE.plusMillis(500))
                .atMost(BOUND)
                .until(() -> b.provider()
                        .lock(config(name, LONG_LEASE, Duration.ZERO))
                        .isEmpty());
        assertThatThrownBy(lock::unlock).as("the old lock").isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> lock.extend(LEASE, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(extended::unlock).isInstanceOf(IllegalStateException.class);
        again.unlock();
        b.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow().unlock();
    }

    @Test
    void extendSetsANewLockAtLeastForFromNow() {
        Instance a = instances.add();
        Instance b = instances.add();
        SimpleLock lock =
                a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow();
        long extendedAt = System.nanoTime();
        Duration atLeast = Duration.ofSeconds(2);

        lock.extend(LONG_LEASE, atLeast).orElseThrow().unlock();

        assertThat(a.holds(name)).as("kept after the unlock").isTrue();
        AtomicReference<SimpleLock> taken = new AtomicReference<>();
        await().pollInSameThread()
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    b.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).ifPresent(taken::set);
                    return taken.get() != null;
                });
        assertThat(Duration.ofNanos(System.nanoTime() - extendedAt)).isGreaterThanOrEqualTo(atLeast);
        taken.get().unlock();
    }

    @Test
    void extendOutsideTheLeaseRangeIsRefusedAndTheLockStaysValid() {
        Instance a = instances.add();
        SimpleLock lock =
                a.provider().lock(config(name, LONG_LEASE, Duration.ZERO)).orElseThrow();

        assertThatThrownBy(() -> lock.extend(Duration.ofMillis(10), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name);
        assertThatThrownBy(() -> lock.extend(LEASE, LONG_LEASE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lockAtLeastFor");

        lock.unlock();
        assertThat(a.holds(name)).isFalse();
    }

    @Test
    void extendOfALeaseThatEndedIsEmpty() {
        Instance a = instances.add();
        SimpleLock lock = a.provider()
                .lock(config(name, Duration.ofSeconds(1), Duration.ZERO))
                .orElseThrow();
        a.cutOff(); // its renewals fail: the lease runs out after a second
        await().atMost(BOUND).until(() -> a.locks().heldLeases().isEmpty());

        assertThat(lock.extend(LEASE, Duration.ZERO)).isEmpty();
        assertThatThrownBy(lock::unlock).as("no longer valid").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aHolderThatNeverRenewsIsTakenOverAfterItsLeaseAndItsLateUnlockDisturbsNobody() {
        Instance frozen = instances.add(builder -> builder.clock(Instances.FROZEN));
        Instance b = instances.add();
        SimpleLock stale =
                frozen.provider().lock(config(name, LEASE, Duration.ZERO)).orElseThrow();
        long fence = frozen.locks().read(name).orElseThrow().fencingToken();
        long start = System.nanoTime();

        SimpleLock taken = takeOver(b, config(name, LEASE, Duration.ZERO));

        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .as("a whole lease")
                .isGreaterThanOrEqualTo(LEASE);
        assertThat(b.holds(name)).isTrue();
        assertThat(b.locks().read(name).orElseThrow().fencingToken()).isGreaterThan(fence);
        stale.unlock(); // the frozen table still believes it holds it, and sends its conditional release
        assertThat(b.holds(name)).as("the new holder keeps the lock").isTrue();
        taken.unlock();
    }

    @Test
    void aHolderWhoseRequestsAllFailIsTakenOverAfterItsLease() {
        Instance dead = instances.add();
        Instance b = instances.add();
        SimpleLock stale =
                dead.provider().lock(config(name, LEASE, Duration.ZERO)).orElseThrow();
        dead.cutOff();

        SimpleLock taken = takeOver(b, config(name, LEASE, Duration.ZERO));

        dead.faults().clear(); // its network is back: an unlock would reach the table
        stale.unlock();
        assertThat(b.holds(name)).as("the new holder keeps the lock").isTrue();
        taken.unlock();
    }

    @Test
    void anAcquireAnsweredAfterAWholeLeaseIsNoLock() {
        Instance a = instances.add();
        a.faults().delayReply("UpdateItem", Duration.ofMillis(1300), 1);

        assertThat(a.provider().lock(config(name, Duration.ofSeconds(1), Duration.ZERO)))
                .isEmpty();
        assertThat(a.locks().heldLeases()).isEmpty();
    }

    @Test
    void theRunsLeaseFencesItsWritesAndAStaleHoldersWriteIsRefused() {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        Instance frozen = instances.add(builder -> builder.clock(Instances.FROZEN));
        Instance b = instances.add();
        SimpleLock stale =
                frozen.provider().lock(config(name, LEASE, Duration.ZERO)).orElseThrow();
        Lease staleLease = Lease.current().orElseThrow();
        SimpleLock taken = takeOver(b, config(name, LEASE, Duration.ZERO));
        Lease lease = Lease.current().orElseThrow();
        assertThat(lease).as("the innermost lock of this thread").isNotSameAs(staleLease);

        lease.transactWrite(putReport("by the holder"));
        assertThat(staleLease.isHeld()).as("the frozen table still believes").isTrue();
        assertThatThrownBy(() -> staleLease.transactWrite(putReport("by the stale holder")))
                .isInstanceOf(LeaseLostException.class);

        Map<String, AttributeValue> report = engine.client()
                .getItem(r -> r.tableName(table.name()).key(reportKey()).consistentRead(true))
                .item();
        assertThat(report.get("text").s()).isEqualTo("by the holder");
        taken.unlock();
        stale.unlock();
    }

    private Map<String, AttributeValue> reportKey() {
        Map<String, AttributeValue> key = new HashMap<>();
        key.put(table.partitionKey(), AttributeValue.fromS("REPORT#" + name));
        table.sortKey().ifPresent(sk -> key.put(sk, AttributeValue.fromS("REPORT")));
        return key;
    }

    private TransactWriteItem putReport(String text) {
        Map<String, AttributeValue> item = new HashMap<>(reportKey());
        item.put("text", AttributeValue.fromS(text));
        return TransactWriteItem.builder()
                .put(put -> put.tableName(table.name()).item(item))
                .build();
    }

    @Test
    void aJobLongerThanLockAtMostForKeepsTheLockAndRunsOnce() throws Exception {
        Instance a = instances.add();
        Instance b = instances.add();
        LockingTaskExecutor executorA = new DefaultLockingTaskExecutor(a.provider());
        LockingTaskExecutor executorB = new DefaultLockingTaskExecutor(b.provider());
        LockConfiguration oneSecond = config(name, Duration.ofSeconds(1), Duration.ZERO);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        AtomicReference<Lease> leaseInJob = new AtomicReference<>();
        AtomicInteger runsOnB = new AtomicInteger();
        ExecutorService thread = Executors.newSingleThreadExecutor();
        try {
            Future<?> job = thread.submit(() -> executorA.executeWithLock(
                    (Runnable) () -> {
                        LockAssert.assertLocked();
                        leaseInJob.set(Lease.current().orElseThrow());
                        started.countDown();
                        try {
                            finish.await(30, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        LockAssert.assertLocked();
                    },
                    oneSecond));
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();

            await().during(Duration.ofMillis(3500)).atMost(BOUND).until(() -> {
                executorB.executeWithLock((Runnable) runsOnB::incrementAndGet, oneSecond);
                return runsOnB.get() == 0;
            });
            assertThat(leaseInJob.get().isHeld())
                    .as("renewed past lockAtMostFor")
                    .isTrue();
            assertThat(leaseInJob.get().name()).isEqualTo(name);

            finish.countDown();
            job.get(10, TimeUnit.SECONDS);
        } finally {
            finish.countDown();
            thread.shutdownNow();
        }
        assertThat(leaseInJob.get().isHeld()).as("released when the job ended").isFalse();
        executorB.executeWithLock((Runnable) runsOnB::incrementAndGet, oneSecond);
        assertThat(runsOnB).hasValue(1);
    }

    @Test
    void insideAJobTheLockIsAssertedAndItsLeaseIsCurrent() throws Throwable {
        Instance a = instances.add();
        LockingTaskExecutor executor = new DefaultLockingTaskExecutor(a.provider());
        String inner = name + "-inner";

        LockingTaskExecutor.TaskResult<Long> result = executor.executeWithLock(
                () -> {
                    LockAssert.assertLocked();
                    Lease outer = Lease.current().orElseThrow();
                    assertThat(outer.name()).isEqualTo(name);
                    executor.executeWithLock(
                            () -> assertThat(Lease.current())
                                    .hasValueSatisfying(
                                            lease -> assertThat(lease.name()).isEqualTo(inner)),
                            config(inner, LEASE, Duration.ZERO));
                    assertThat(Lease.current()).contains(outer);
                    return outer.fencingToken();
                },
                config(name, LEASE, Duration.ZERO));

        assertThat(result.wasExecuted()).isTrue();
        assertThat(result.getResult())
                .isEqualTo(a.locks().read(name).orElseThrow().fencingToken());
        assertThat(Lease.current()).as("after the job").isEmpty();
        assertThatThrownBy(LockAssert::assertLocked).isInstanceOf(IllegalStateException.class);
    }

    @AfterEach
    void noLockIsLeftOnTheTestThread() {
        assertThat(Lease.current()).isEmpty();
    }

    /** Polls as a scheduler would until {@code instance} gets the lock. */
    private static SimpleLock takeOver(Instance instance, LockConfiguration config) {
        AtomicReference<SimpleLock> taken = new AtomicReference<>();
        await().pollInSameThread()
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    instance.provider().lock(config).ifPresent(taken::set);
                    return taken.get() != null;
                });
        return taken.get();
    }
}
