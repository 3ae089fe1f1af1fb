package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Cancelling the non-blocking calls on the run's engine (dynalite, or moto): what the requests actually leave in the
 * table. The decisions themselves are tested without an engine in {@link AsyncApiTest}.
 */
@DynamoDbEngineTest
class AsyncEngineTest {

    /** A waiting contender polls every second. */
    private static final Duration LEASE = Duration.ofSeconds(3);

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();

    AsyncEngineTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aCancelledAcquireWhoseWriteWasInFlightLeavesTheLockReleased() {
        Contenders.Contender contender = contenders.add();
        contender.faults().delayReply("UpdateItem", Duration.ofMillis(500), 1); // applied, answered late

        CompletableFuture<Lease> acquire = contender.locks().acquireAsync(name, LEASE);
        await().until(() -> contender.requests().count("UpdateItem") == 1);
        assertThat(acquire.cancel(true)).isTrue();

        await().atMost(Duration.ofSeconds(5)).until(() -> !contenders.item(name).containsKey("owner"));
        assertThat(contenders.item(name)).containsKey("fence"); // it was granted, then released: not given back
        assertThat(contender.requests().count("UpdateItem"))
                .as("the acquire, then its release")
                .isEqualTo(2);
        assertThat(contender.locks().heldLeases()).isEmpty();
    }

    @Test
    void aCancelledWaitSendsNothingMoreAndTakesNothing() throws Exception {
        Lease held = contenders.add().locks().tryAcquire(name, LEASE).orElseThrow();
        Contenders.Contender waiter = contenders.add();
        CompletableFuture<Lease> acquire = waiter.locks().acquireAsync(name, LEASE);
        await().until(() -> waiter.requests().count("UpdateItem") == 1); // refused: it polls every second now
        Thread.sleep(100);

        acquire.cancel(true);
        int sent = waiter.requests().operations().size();
        held.release();
        Thread.sleep(LEASE.toMillis());

        assertThat(waiter.requests().operations()).hasSize(sent);
        assertThat(contenders.item(name)).doesNotContainKey("owner");
    }
}
