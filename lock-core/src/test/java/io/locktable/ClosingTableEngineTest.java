package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * A table's {@link LockTable#close()} over an engine: no request after it, a release on its way is sent before it
 * returns, and an acquire whose answer it cut off is given back (issue 23). What it decides is in {@link
 * ClosingTableTest}, in memory.
 */
@DynamoDbEngineTest
class ClosingTableEngineTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    /** Far below the 10 s a waiting acquire sleeps between polls of a 30 s holder. */
    private static final long PROMPTLY_SECONDS = 3;

    @AutoClose
    private final Contenders contenders;

    private final ExecutorService callers = Executors.newCachedThreadPool();
    private final String name = Contenders.lockName();

    ClosingTableEngineTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    @Test
    void aWaitingAcquireEndsWhenItsTableClosesWhileAnotherProcessHoldsTheLock() throws Exception {
        contenders.add().locks().tryAcquire(name, LEASE).orElseThrow();
        Contenders.Contender waiting = contenders.add();
        Future<Lease> acquire = callers.submit(() -> waiting.locks().acquire(name, LEASE));
        await().until(() -> waiting.requests().operations().contains("UpdateItem")); // refused: it polls now

        waiting.locks().close();

        assertThatThrownBy(() -> acquire.get(PROMPTLY_SECONDS, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("was closed while lock '" + name + "' was being acquired");
        int sent = waiting.requests().operations().size();
        Thread.sleep(500);
        assertThat(waiting.requests().operations())
                .as("no request after the close")
                .hasSize(sent);
    }

    /**
     * A release that another thread is sending as the table closes (Spring Integration's leader initiator unlocks on
     * its own thread while the context closes the table and then the client): close waits for it, so the client
     * closed right after does not cut it off and leave the lock to free itself after a whole lease.
     */
    @Test
    void aReleaseAnotherThreadIsSendingWhenTheTableClosesIsSentBeforeCloseReturns() throws Exception {
        Contenders.Contender holder = contenders.add();
        Lease lease = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        holder.faults().delayRequest("UpdateItem", Duration.ofMillis(800), 1); // the release goes out late
        Future<?> releasing = callers.submit(lease::release);
        await().until(() -> !lease.isHeld()); // ended here, its write on the way

        holder.locks().close();
        holder.client().close();

        // the client is closed now: a release still on its way would have failed; the item shows it was sent first
        assertThat(contenders.item(name)).as("released in the table").doesNotContainKey("owner");
        releasing.get(PROMPTLY_SECONDS, TimeUnit.SECONDS); // the caller's release returns (its thread may lag close())
        assertThat(contenders.add().locks().tryAcquire(name, LEASE)).isPresent();
    }

    @Test
    void anAcquireWhoseAnswerIsLostAsTheTableClosesIsStillGivenBack() {
        DecoratedClient client = new DecoratedClient(contenders.client(o -> {}));
        AtomicReference<LockTable> table = new AtomicReference<>();
        client.throwAfter(
                "UpdateItem",
                () -> {
                    table.get().close(); // the table closes while the applied write's answer is on its way
                    return SdkClientException.create("the answer was lost");
                },
                1);
        table.set(contenders.over(client, builder -> {}));

        assertThatThrownBy(() -> table.get().tryAcquire(name, LEASE)).isInstanceOf(SdkClientException.class);

        assertThat(contenders.item(name)).as("given back at once").doesNotContainKey("owner");
        assertThat(contenders.add().locks().tryAcquire(name, LEASE)).isPresent();
    }
}
