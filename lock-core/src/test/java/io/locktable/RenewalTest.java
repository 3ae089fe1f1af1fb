package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Renewals over an engine: the requests they send and what a lost, late or failing request does to a lease. How they
 * are scheduled is in {@link RenewalSchedulingTest}, in memory.
 */
@DynamoDbEngineTest
class RenewalTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    @AutoClose
    private final Contenders contenders;

    RenewalTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aLeaseRenewsItselfEveryThirdOfItsDurationWithANewRecordVersionAndTheSameFence() throws Exception {
        List<String> renewals = new CopyOnWriteArrayList<>();
        Contenders.Contender a = contenders.add(builder -> builder.listener(new LockTableListener() {
            @Override
            public void onRenewed(Lease lease) {
                renewals.add(lease.name());
            }
        }));
        String name = Contenders.lockName();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();
        String firstRvn = contenders.item(name).get("rvn").s();

        Thread.sleep(LEASE.multipliedBy(2).toMillis());

        assertThat(lease.isHeld()).isTrue();
        // six renewals are due in two leases; the scheduler may be a little late
        assertThat(renewals).hasSizeBetween(4, 7);
        assertThat(contenders.item(name).get("rvn").s()).isNotEqualTo(firstRvn);
        assertThat(contenders.item(name).get("fence").n()).isEqualTo("1");
        assertThat(a.requests().operations()).containsOnly("UpdateItem");
    }

    @Test
    void aRenewalAppliedWhoseReplyIsLostIsRecognisedAsItsOwnSuccess() throws Exception {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();
        a.faults().loseReply("UpdateItem", 2);

        Thread.sleep(LEASE.multipliedBy(2).toMillis());

        assertThat(a.faults().injected()).isEqualTo(2);
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.whenEnded()).isNotDone();
        assertThat(contenders.item(name).get("fence").n()).isEqualTo("1");
        assertThat(contenders.item(name).get("owner").s()).startsWith(a.locks().owner() + ".");
    }

    @Test
    void renewalsThatFailForLessThanALeaseDoNotLoseIt() throws Exception {
        Contenders.Contender a = contenders.add();
        Lease lease = a.locks()
                .tryAcquire(Contenders.lockName(), Duration.ofSeconds(3))
                .orElseThrow();
        Thread.sleep(900);
        a.faults().failBeforeSend("UpdateItem", 3);

        Thread.sleep(3_000);

        assertThat(a.faults().injected()).isEqualTo(3);
        assertThat(lease.isHeld()).isTrue();
    }

    @Test
    void aLeaseWhoseRenewalsAllFailExpiresAtItsEndAndWhenEndedSaysSo() throws Exception {
        Contenders.Contender a = contenders.add();
        Lease lease = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();
        a.faults().blackhole("UpdateItem");
        long start = System.nanoTime();

        LeaseEnd end = lease.whenEnded().get(5, TimeUnit.SECONDS);

        assertThat(end).isEqualTo(LeaseEnd.EXPIRED);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThanOrEqualTo(LEASE);
        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.remaining()).isZero();
        assertThat(a.locks().heldLeases()).isEmpty();
    }

    @Test
    void aLeaseWhoseItemWasTakenEndsAsLost() throws Exception {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();
        // another writer changes the owner under the holder
        contenders.engineClientUpdateOwner(name, "someone-else");

        LeaseEnd end = lease.whenEnded().get(5, TimeUnit.SECONDS);

        assertThat(end).isEqualTo(LeaseEnd.LOST);
        assertThat(contenders.item(name).get("owner").s()).isEqualTo("someone-else");
    }

    /**
     * 120 leases of four seconds over a network where each answer takes 100 ms: two fixed workers (the old design)
     * renew 20 a second, so each lease waits six seconds for its turn and all are lost. The workers now grow with the
     * renewals due (up to 6 by default: 60 a second), and each lease is renewed about every 2 s.
     */
    @Test
    void manyLeasesOverASlowNetworkAreAllKeptAsWorkersGrowWithTheRenewalsDue() throws Exception {
        Contenders.Contender a = contenders.add();
        Duration lease = Duration.ofSeconds(4);
        List<Lease> leases = new java.util.ArrayList<>();
        for (int i = 0; i < 120; i++) {
            leases.add(a.locks().tryAcquire(Contenders.lockName(), lease).orElseThrow());
        }
        a.faults().delayReply("UpdateItem", Duration.ofMillis(100), Integer.MAX_VALUE);

        Thread.sleep(lease.multipliedBy(3).toMillis());

        assertThat(leases).allMatch(Lease::isHeld);
        assertThat(a.locks().heldLeases()).hasSize(120);
    }

    @Test
    void anAcquireAnsweredAfterAWholeLeaseReturnsALeaseThatHasEnded() throws Exception {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();
        a.faults().delayReply("UpdateItem", LEASE.plusMillis(300), 1);

        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(lease.isHeld()).isFalse();
        assertThat(lease.whenEnded().get(2, TimeUnit.SECONDS)).isEqualTo(LeaseEnd.EXPIRED);
        await().atMost(Duration.ofSeconds(3)).until(() -> !contenders.item(name).containsKey("owner"));
    }

    @Test
    void aRenewalBlockedOnALateReplyDelaysNeitherItsLeasesExpiryNorTheOtherLeasesRenewal() throws Exception {
        Contenders.Contender a = contenders.add(builder -> builder.schedulerThreads(1));
        Lease first = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();
        Lease second = a.locks().tryAcquire(Contenders.lockName(), LEASE).orElseThrow();
        long acquired = System.nanoTime();
        // the first renewal sent holds the only worker thread for two leases
        a.faults().delayReply("UpdateItem", LEASE.multipliedBy(2), 1);

        Object end = CompletableFuture.anyOf(first.whenEnded(), second.whenEnded())
                .get(LEASE.multipliedBy(3).toMillis(), TimeUnit.MILLISECONDS);
        Duration ended = Duration.ofNanos(System.nanoTime() - acquired);

        assertThat(end).isEqualTo(LeaseEnd.EXPIRED);
        assertThat(ended)
                .as("it ends by its lease end, not when the worker is free again")
                .isLessThan(LEASE.plusMillis(500));
        assertThat(List.of(first, second))
                .as("the other one's renewal, late behind the blocked one, got a worker beyond the bound of one")
                .filteredOn(Lease::isHeld)
                .hasSize(1);
    }
}
