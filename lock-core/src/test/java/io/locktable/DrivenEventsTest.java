package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Listeners of a table whose clock a test drives run as on a table's own event thread: one at a time, in order, and
 * never inside a task of the timer, so a listener that blocks holds up no other lease's end. No engine.
 */
class DrivenEventsTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    /**
     * Found by the simulation (seed 1796598347879): two leases ran out at one wake of the timer; the first one's
     * listener ran inside the timer's task and blocked there while time went on, and the second lease, already taken
     * off the timer, stayed live, its work running, until the listener returned.
     */
    @Test
    void aListenerThatBlocksWhileTimeGoesOnHoldsUpNoOtherLeasesEnd() {
        ManualLockClock clock = new ManualLockClock(0);
        AtomicReference<@Nullable Lease> first = new AtomicReference<>();
        AtomicReference<@Nullable String> otherWhenFirstHeard = new AtomicReference<>();
        AtomicBoolean otherStoppedWhenFirstHeard = new AtomicBoolean();
        List<Lease> stopped = new CopyOnWriteArrayList<>();
        List<Lease> leases = new CopyOnWriteArrayList<>();
        LockTable locks = LockTable.Builder.over(new ScriptedLockStore(), "pk")
                .clock(clock)
                .listener(new LockTableListener() {
                    @Override
                    public void onLost(Lease ended, LeaseEnd reason) {
                        if (!first.compareAndSet(null, ended)) {
                            return;
                        }
                        clock.advance(Duration.ofSeconds(5)); // it blocks, and time goes on meanwhile
                        Lease other = leases.get(0) == ended ? leases.get(1) : leases.get(0);
                        otherWhenFirstHeard.set(other.end().map(Enum::name).orElse("live"));
                        otherStoppedWhenFirstHeard.set(stopped.contains(other));
                    }
                })
                .build();
        leases.add(locks.tryAcquire("a", LEASE).orElseThrow());
        leases.add(locks.tryAcquire("b", LEASE).orElseThrow());
        leases.forEach(lease -> lease.stopOnEnd(() -> stopped.add(lease)));

        clock.jump(LEASE.plusSeconds(1)); // the process stood still past both leases: one wake ends them both
        clock.advance(Duration.ZERO);

        assertThat(first.get()).as("a listener heard an end").isNotNull();
        assertThat(otherWhenFirstHeard.get())
                .as("the other lease, 5 s into the first one's listener")
                .isEqualTo("EXPIRED");
        assertThat(otherStoppedWhenFirstHeard)
                .as("the other lease's work was stopped")
                .isTrue();
    }

    @Test
    void anEventThatAListenerCausesRunsAfterThatListenerReturns() {
        ManualLockClock clock = new ManualLockClock(0);
        List<String> heard = new CopyOnWriteArrayList<>();
        AtomicReference<@Nullable Lease> second = new AtomicReference<>();
        LockTable locks = LockTable.Builder.over(new ScriptedLockStore(), "pk")
                .clock(clock)
                .listener(new LockTableListener() {
                    @Override
                    public void onReleased(Lease released) {
                        heard.add("start " + released.name());
                        Lease next = second.getAndSet(null);
                        if (next != null) {
                            next.release();
                        }
                        heard.add("end " + released.name());
                    }
                })
                .build();
        Lease a = locks.tryAcquire("a", LEASE).orElseThrow();
        second.set(locks.tryAcquire("b", LEASE).orElseThrow());

        a.release();

        assertThat(heard).as("one event at a time, in order").containsExactly("start a", "end a", "start b", "end b");
    }

    @Test
    void anEventCausedOutsideTheTimerRunsBeforeTheCallReturns() {
        ManualLockClock clock = new ManualLockClock(0);
        List<String> heard = new CopyOnWriteArrayList<>();
        LockTable locks = LockTable.Builder.over(new ScriptedLockStore(), "pk")
                .clock(clock)
                .listener(new LockTableListener() {
                    @Override
                    public void onReleased(Lease released) {
                        heard.add(released.name());
                    }
                })
                .build();

        locks.tryAcquire("a", LEASE).orElseThrow().release();

        assertThat(heard).containsExactly("a");
    }
}
