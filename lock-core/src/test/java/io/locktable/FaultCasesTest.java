package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;

/**
 * The faults of a real network, each as a script of what the network did to one request: an answer lost after the
 * engine applied the write (so the SDK retried it), a request held for seconds, a thread interrupted, the table
 * closed meanwhile. Each runs on every engine; the read that engines without returned items need is part of it.
 */
@DynamoDbEngineTest
class FaultCasesTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    @AutoClose
    private final Contenders contenders;

    @AutoClose
    private final LogCapture logs = new LogCapture();

    @AutoClose("shutdownNow")
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private final String name = Contenders.lockName();

    FaultCasesTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void anAcquireAppliedWhoseAnswerWasLostIsRecognisedOnTheSdksRetryAndHeld() {
        Contenders.Contender a = contenders.add();
        a.faults().loseReply("UpdateItem", 1);

        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(a.faults().injected()).isEqualTo(1);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.fencingToken()).as("one write applied, one token").isEqualTo(1);
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(lease.owner());
    }

    @Test
    void aTakeoverAppliedWhoseAnswerWasLostIsRecognisedOnTheSdksRetryAndHeld() throws Exception {
        Contenders.Contender holder = contenders.add();
        Contenders.Contender contender = contenders.add();
        Lease old = holder.locks().tryAcquire(name, Duration.ofSeconds(1)).orElseThrow();
        holder.faults().blackhole("UpdateItem"); // the holder stops renewing
        assertThat(contender.locks().tryAcquire(name, LEASE)).isEmpty();
        contender.faults().loseReply("UpdateItem", 1);

        Lease taken = contender.locks().acquire(name, LEASE, Duration.ofSeconds(10));

        assertThat(taken.tookOver()).isTrue();
        assertThat(taken.fencingToken()).isEqualTo(old.fencingToken() + 1);
        assertThat(contenders.item(name).get("owner").s()).isEqualTo(taken.owner());
    }

    @Test
    void acquireWithAMaxWaitReturnsWithinItWhileARequestHangsAndGivesBackWhatTheRequestTook() {
        Contenders.Contender a = contenders.add();
        // the engine applies the write, and its answer takes eight seconds
        a.faults().delayReply("UpdateItem", Duration.ofSeconds(8), 1);

        long start = System.nanoTime();
        assertThatThrownBy(() -> a.locks().acquire(name, Duration.ofSeconds(30), Duration.ofSeconds(1)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining(name);
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(took).as("bounded by maxWait, not by the request").isLessThan(Duration.ofSeconds(5));
        // the write it cut short was applied: it is given back, not left held by nobody for a lease
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !contenders.item(name).containsKey("owner"));
        assertThat(a.locks().heldLeases()).isEmpty();
    }

    @Test
    void aReleaseOnAnInterruptedThreadIsStillSentAndTheInterruptKept() {
        Contenders.Contender a = contenders.add();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        Thread.currentThread().interrupt();
        lease.release();
        boolean stillInterrupted = Thread.interrupted();

        assertThat(stillInterrupted).isTrue();
        assertThat(contenders.item(name)).doesNotContainKey("owner");
    }

    @Test
    void closingOnAnInterruptedThreadStillReleases() {
        Contenders.Contender a = contenders.add();
        a.locks().tryAcquire(name, LEASE).orElseThrow();

        Thread.currentThread().interrupt();
        a.locks().close();
        boolean stillInterrupted = Thread.interrupted();

        assertThat(stillInterrupted).isTrue();
        assertThat(contenders.item(name)).doesNotContainKey("owner");
    }

    @Test
    void closingReleasesManyLeasesInParallelOnTheTablesWorkersWithinItsBoundOverASlowEngine() {
        Contenders.Contender a = contenders.add();
        java.util.List<String> names = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            names.add(name + "-" + i);
            a.locks().tryAcquire(names.get(i), LEASE).orElseThrow();
        }
        a.faults().delayRequest("UpdateItem", Duration.ofMillis(500), 40); // each release takes half a second

        long start = System.nanoTime();
        a.locks().close();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // one after the other they would take 20 s; the close's bound is 5 s
        assertThat(took).isLessThan(Timing.CLOSE.plusSeconds(2));
        long released = names.stream()
                .filter(each -> !contenders.item(each).containsKey("owner"))
                .count();
        assertThat(released).as("released in parallel within the bound").isEqualTo(40);
    }

    @Test
    void closingTheTableWhileAnAcquireIsInFlightGivesTheLockBackAndTellsTheCaller() throws Exception {
        Contenders.Contender a = contenders.add();
        CountDownLatch sent = new CountDownLatch(1);
        a.faults().beforeSend("UpdateItem", sent::countDown, 1).delayReply("UpdateItem", Duration.ofSeconds(1), 1);

        Future<?> acquiring = threads.submit(() -> a.locks().tryAcquire(name, LEASE));
        assertThat(sent.await(5, TimeUnit.SECONDS)).isTrue();
        a.locks().close();

        assertThatThrownBy(() -> acquiring.get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
        assertThat(contenders.item(name)).doesNotContainKey("owner");
        assertThat(contenders.item(name).get("fence").n()).isEqualTo("1");
    }

    @Test
    void aReleaseAppliedWhoseAnswerWasLostIsReleasedWithoutAWarning() {
        Contenders.Contender a = contenders.add();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();
        a.faults().loseReply("UpdateItem", 1);

        lease.release();

        assertThat(a.faults().injected()).isEqualTo(1);
        assertThat(contenders.item(name)).doesNotContainKey("owner");
        assertThat(logs.atLeast(Level.WARN)).isEmpty();
    }

    @Test
    void manyThreadsOfOneTableOnOneLockRaiseNoFalseFenceRegression() throws Exception {
        List<String> regressions = new CopyOnWriteArrayList<>();
        Contenders.Contender a = contenders.add(b -> b.listener(new LockTableListener() {
            @Override
            public void onFenceRegressed(String lock, long highestSeen, long fencingToken) {
                regressions.add(highestSeen + "->" + fencingToken);
            }
        }));
        AtomicInteger granted = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            workers.add(threads.submit(() -> {
                for (int i = 0; i < 15; i++) {
                    a.locks().tryAcquire(name, LEASE).ifPresent(lease -> {
                        granted.incrementAndGet();
                        a.locks().read(name);
                        lease.release();
                    });
                    a.locks().read(name);
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }

        assertThat(granted.get()).isGreaterThan(1);
        assertThat(regressions).isEmpty();
        assertThat(logs.atLeast(Level.ERROR)).isEmpty();
    }

    @Test
    void aListenerThatThrowsAnErrorOrBlocksNeitherOrphansNorDelaysRenewals() throws Exception {
        CountDownLatch unblock = new CountDownLatch(1);
        AtomicInteger heard = new AtomicInteger();
        Contenders.Contender a = contenders.add(b -> b.listener(new LockTableListener() {
            @Override
            public void onRenewed(Lease lease) {
                if (heard.incrementAndGet() == 1) {
                    throw new AssertionError("a listener's own bug");
                }
                try {
                    unblock.await(); // the second blocks until the test ends
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }));
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        Thread.sleep(LEASE.multipliedBy(3).toMillis());
        unblock.countDown();

        assertThat(lease.isHeld()).as("renewed through three leases").isTrue();
        assertThat(a.requests().count("UpdateItem"))
                .as("the acquire and its renewals")
                .isGreaterThanOrEqualTo(6);
        assertThat(heard.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void anAcquireAnsweredAfterAWholeLeaseAnnouncesAcquiredThenLostInThatOrder() throws Exception {
        List<String> events = new CopyOnWriteArrayList<>();
        Contenders.Contender a = contenders.add(b -> b.listener(new LockTableListener() {
            @Override
            public void onAcquired(Lease lease, boolean tookOver) {
                events.add("acquired");
            }

            @Override
            public void onLost(Lease lease, LeaseEnd reason) {
                events.add("lost " + reason);
            }
        }));
        a.faults().delayReply("UpdateItem", Duration.ofMillis(1300), 1);

        Lease lease = a.locks().tryAcquire(name, Duration.ofSeconds(1)).orElseThrow();

        assertThat(lease.isHeld()).isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == 2);
        assertThat(events).containsExactly("acquired", "lost EXPIRED");
    }

    @Test
    void closingAThousandLeasesAgainstAnUnreachableTableTakesSecondsNotMinutes() {
        Contenders.Contender a = contenders.add(b -> {}, o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            leases.add(
                    a.locks().tryAcquire(name + "-" + i, Duration.ofSeconds(60)).orElseThrow());
        }
        // every request now hangs until its timeout cuts it short
        a.faults().delayRequest("UpdateItem", Duration.ofSeconds(60), Integer.MAX_VALUE);

        long start = System.nanoTime();
        a.locks().close();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        // serially, each release waiting out its 5 s timeout, this took 200 s
        assertThat(took).isLessThan(Duration.ofSeconds(15));
        assertThat(leases).allSatisfy(lease -> assertThat(lease.end()).contains(LeaseEnd.CLOSED));
        assertThat(logs.atLeast(Level.WARN)).anyMatch(message -> message.contains("did not reach DynamoDB"));
    }

    @Test
    void aLeaseWhoseItemHasALeaseOutsideTheRangeIsAForeignItem() {
        Contenders.Contender a = contenders.add();
        a.locks().tryAcquire(name, Duration.ofSeconds(60)).orElseThrow(); // no renewal rewrites leaseMs meanwhile
        for (String leaseMs : List.of("0", "-5", "999999999999999")) {
            contenders.setAttribute(name, "leaseMs", leaseMs);
            Contenders.Contender b = contenders.add();

            assertThatThrownBy(() -> b.locks().tryAcquire(name, LEASE))
                    .isInstanceOf(LockItemConflictException.class)
                    .hasMessageContaining(name)
                    .hasMessageContaining("leaseMs " + leaseMs);
        }
    }

    @Test
    void aLeaderLoopMeetingAnItemWithAHugeLeaseEndsWithTheConflictNotAnOverflow() {
        Contenders.Contender a = contenders.add();
        a.locks().tryAcquire(name, Duration.ofSeconds(60)).orElseThrow();
        contenders.setAttribute(name, "leaseMs", "999999999999999");
        Contenders.Contender b = contenders.add();

        CompletableFuture<Void> leading = CompletableFuture.runAsync(
                () -> {
                    try {
                        b.locks().runAsLeader(name, LEASE, lease -> {});
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                },
                threads);

        assertThatThrownBy(() -> leading.get(10, TimeUnit.SECONDS))
                .hasRootCauseInstanceOf(LockItemConflictException.class);
    }
}
