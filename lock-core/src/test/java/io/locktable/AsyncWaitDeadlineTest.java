package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.ScriptedLockStore.Meanwhile;
import io.locktable.ScriptedLockStore.Op;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The deadline of {@link LockTable#acquireAsync(String, Duration, Duration)} in virtual time, in memory: no attempt
 * starts after it and no lease answered after it is handed out. That it holds while the workers are busy is in {@link
 * AsyncEngineTest}, over an engine.
 */
class AsyncWaitDeadlineTest {

    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration MAX_WAIT = Duration.ofSeconds(1);
    /** The futures complete on the completion executor: soon, in real time. */
    private static final Duration PROMPTLY = Duration.ofSeconds(5);

    private final ManualLockClock time = new ManualLockClock();
    private final MemoryLockStore.Items items = new MemoryLockStore.Items();
    private final ScriptedLockStore holderStore = new ScriptedLockStore(items);
    private final ScriptedLockStore waiterStore = new ScriptedLockStore(items);
    private final LockTable holder = LockTable.Builder.over(holderStore, "pk")
            .clock(new ManualLockClock())
            .build();
    private final LockTable waiter =
            LockTable.Builder.over(waiterStore, "pk").clock(time).build();

    @AfterEach
    void close() {
        waiter.close();
        holder.close();
    }

    @Test
    void anAttemptDueAfterTheMaxWaitIsNeverSent() {
        holder.tryAcquire("job", LEASE).orElseThrow();
        CompletableFuture<Lease> waiting = waiter.acquireAsync("job", LEASE, MAX_WAIT); // its first attempt: busy
        assertThat(sent()).isOne();

        time.advance(MAX_WAIT); // its next poll falls due with the wait's end

        assertThat(waiting)
                .failsWithin(PROMPTLY)
                .withThrowableOfType(Exception.class)
                .withCauseInstanceOf(TimeoutException.class);
        time.advance(LEASE);
        assertThat(sent()).as("no attempt after the wait's end").isOne();
    }

    @Test
    void aLeaseAnsweredAfterTheMaxWaitIsReleasedNotHandedOut() {
        // the write is answered after the wait's end (a slow round trip): the caller gave up by then
        waiterStore.script(Op.ACQUIRE, new Meanwhile(() -> time.jump(MAX_WAIT.plusMillis(1))), 1);

        CompletableFuture<Lease> waiting = waiter.acquireAsync("job", LEASE, MAX_WAIT);

        assertThat(waiting)
                .failsWithin(PROMPTLY)
                .withThrowableOfType(Exception.class)
                .withCauseInstanceOf(TimeoutException.class);
        assertThat(waiter.heldLeases()).isEmpty();
        assertThat(waiter.read("job").orElseThrow().owner())
                .as("released at once")
                .isEmpty();
    }

    @Test
    void aLeaseAnsweredWithinTheMaxWaitIsHandedOut() {
        waiterStore.script(Op.ACQUIRE, new Meanwhile(() -> time.jump(MAX_WAIT.minusMillis(1))), 1);

        CompletableFuture<Lease> waiting = waiter.acquireAsync("job", LEASE, MAX_WAIT);

        assertThat(waiting).succeedsWithin(PROMPTLY).matches(Lease::isHeld);
    }

    private int sent() {
        return waiterStore.sent(Op.ACQUIRE) + waiterStore.sent(Op.READ);
    }
}
