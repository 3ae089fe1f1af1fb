package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * {@link LockTable#lead} over an engine: renewals the network loses and a foreign item at the lock's key. The
 * election's decisions are in {@link LeadershipTest}, in memory.
 */
@DynamoDbEngineTest
class LeadershipEngineTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();

    LeadershipEngineTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aLeaderWhoseRenewalsFailLosesTheTermAndContendsAgain() {
        Contenders.Contender table = contenders.add();
        Leadership leadership = table.locks().lead(name, LEASE);
        await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader);
        Lease firstTerm = leadership.lease().orElseThrow();

        table.faults().blackhole("UpdateItem");
        await().atMost(LEASE.plusSeconds(2)).until(() -> !leadership.isLeader());
        table.faults().clear();

        await().atMost(LEASE.multipliedBy(2).plusSeconds(5)).until(leadership::isLeader);
        assertThat(firstTerm.end()).isPresent();
        assertThat(leadership.lease().orElseThrow().fencingToken()).isGreaterThan(firstTerm.fencingToken());
        assertThat(leadership.whenStopped()).isNotDone();
        leadership.close();
    }

    @Test
    void anElectionWithARetryAfterErrorsOutlivesAForeignItemAndLeadsOnceItIsGone() {
        contenders.putForeignItem(name);
        Leadership leadership = contenders.add().locks().lead(name, LEASE, lease -> {}, Duration.ofMillis(500));

        await().atMost(Duration.ofSeconds(5)).until(() -> leadership.failuresInRow() >= 2);
        assertThat(leadership.lastError())
                .hasValueSatisfying(error -> assertThat(error)
                        .isInstanceOf(LockItemConflictException.class)
                        .hasMessageContaining(name));
        assertThat(leadership.lastErrorAt()).isPresent();
        assertThat(leadership.whenStopped()).isNotDone();

        contenders.deleteItem(name);
        await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader);
        assertThat(leadership.failuresInRow()).isZero();
        assertThat(leadership.lastError()).as("kept for a status page").isPresent();
        leadership.close();
    }

    @Test
    void withoutARetryAfterErrorsAForeignItemEndsTheElection() {
        contenders.putForeignItem(name);
        Leadership leadership = contenders.add().locks().lead(name, LEASE);

        assertThat(leadership.whenStopped())
                .failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCauseInstanceOf(LockItemConflictException.class);
        assertThat(leadership.lastError()).isEmpty();
        assertThatThrownBy(() -> contenders.add().locks().lead(name, LEASE, lease -> {}, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryAfterError");
    }
}
