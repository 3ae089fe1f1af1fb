package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * What a table decides about an acquire, in memory: who is refused, which leases it holds and what its listener hears.
 * The requests and the stored item are in {@link AcquireTest}, over an engine.
 */
class AcquireDecisionTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    @AutoClose
    private final MemoryTables tables = new MemoryTables("AcquireDecision");

    @Test
    void aHeldLockIsRefusedToAnotherContenderAndToItsOwnHolder() {
        LockTable a = tables.add();
        LockTable b = tables.add();
        String name = Contenders.lockName();
        Lease lease = a.tryAcquire(name, LEASE).orElseThrow();

        assertThat(b.tryAcquire(name, LEASE)).isEmpty();
        assertThat(a.tryAcquire(name, LEASE)).as("not reentrant").isEmpty();
        assertThat(lease.isHeld()).isTrue();
        assertThat(tables.ownerOf(name)).startsWith(a.owner() + ".");
    }

    @Test
    void heldLeasesListsTheLeasesNotYetEnded() {
        LockTable a = tables.add();
        Lease one = a.tryAcquire(Contenders.lockName(), LEASE).orElseThrow();
        Lease two = a.tryAcquire(Contenders.lockName(), LEASE).orElseThrow();
        assertThat(a.heldLeases()).containsExactlyInAnyOrder(one, two);

        one.release();

        assertThat(a.heldLeases()).containsExactly(two);
    }

    @Test
    void listenersHearAcquiresBusyAndReleasesInOrderOnTheTablesEventThread() {
        EventLog heardByA = new EventLog();
        EventLog heardByB = new EventLog();
        LockTable a = tables.add(builder -> builder.listener(heardByA));
        LockTable b = tables.add(builder -> builder.listener(heardByB));
        String name = Contenders.lockName();

        Lease lease = a.tryAcquire(name, LEASE).orElseThrow();
        b.tryAcquire(name, LEASE);
        lease.release();

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(heardByA.events).containsExactly("started", "acquired 1", "finished ACQUIRED", "released 1");
            assertThat(heardByB.events).containsExactly("started", "busy 1", "finished BUSY");
        });
        assertThat(heardByA.threads).allMatch(thread -> thread.contains("-events-"));
    }

    @Test
    void aWaitingAcquireIsHeardStartedBeforeItWaitsAndFinishedAfter() throws Exception {
        EventLog heardByB = new EventLog();
        LockTable a = tables.add();
        LockTable b = tables.add(builder -> builder.listener(heardByB));
        String name = Contenders.lockName();
        Lease held = a.tryAcquire(name, LEASE).orElseThrow();

        assertThatThrownBy(() -> b.acquire(name, LEASE, Duration.ofMillis(300))).isInstanceOf(TimeoutException.class);
        held.release();
        Lease lease = b.acquire(name, LEASE, Duration.ofSeconds(5));
        lease.release();

        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(heardByB.events).contains("released 2"));
        List<String> events = List.copyOf(heardByB.events);
        assertThat(events.stream().filter(event -> !event.equals("busy 1")))
                .containsExactly(
                        "started", "finished TIMEOUT", "started", "acquired 2", "finished ACQUIRED", "released 2");
        assertThat(events.subList(1, events.indexOf("finished TIMEOUT")))
                .isNotEmpty()
                .containsOnly("busy 1");
        assertThat(heardByB.threads).allMatch(thread -> thread.contains("-events-"));
    }

    /** Records the events one table's listener hears, and on which threads. */
    private static final class EventLog implements LockTableListener {
        final List<String> events = new CopyOnWriteArrayList<>();
        final List<String> threads = new CopyOnWriteArrayList<>();

        private void add(String event) {
            events.add(event);
            threads.add(Thread.currentThread().getName());
        }

        @Override
        public void onAcquired(Lease lease, boolean tookOver) {
            add("acquired " + lease.fencingToken());
        }

        @Override
        public void onBusy(String name, LockRecord holder) {
            add("busy " + holder.fencingToken());
        }

        @Override
        public void onAcquireStarted(String name, long acquireId) {
            add("started");
        }

        @Override
        public void onAcquireFinished(
                String name, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
            add("finished " + outcome);
        }

        @Override
        public void onReleased(Lease lease) {
            add("released " + lease.fencingToken());
        }
    }
}
