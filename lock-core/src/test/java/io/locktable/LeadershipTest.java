package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/** {@link LockTable#lead}: an election as a handle, on one thread per lock, with no work thread per term. */
@DynamoDbEngineTest
class LeadershipTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    @AutoClose
    private final Contenders contenders;

    private final String name = Contenders.lockName();

    LeadershipTest(DynamoDbEngine engine, TestTable table) {
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void oneOfTwoLeadsAndClosingItHandsTheLockToTheOtherWithTheNextToken() throws Exception {
        Leadership first = contenders.add().locks().lead(name, LEASE);
        await().atMost(Duration.ofSeconds(5)).until(first::isLeader);
        Leadership second = contenders.add().locks().lead(name, LEASE);
        Thread.sleep(LEASE.toMillis()); // a whole lease: the first renews, the second follows
        long firstToken = first.lease().orElseThrow().fencingToken();

        assertThat(second.isLeader()).isFalse();
        assertThat(second.lease()).isEmpty();
        first.close();

        assertThat(first.whenStopped().get(1, TimeUnit.SECONDS)).isNull();
        assertThat(first.isLeader()).isFalse();
        await().atMost(LEASE.plusSeconds(2)).until(second::isLeader); // within one poll of the release
        assertThat(second.lease().orElseThrow().fencingToken()).isEqualTo(firstToken + 1);
        second.close();
        assertThat(contenders.item(name)).doesNotContainKey("owner");
    }

    @Test
    void anElectionKeepsOneThreadPerLockAndNoneForTheTerm() {
        Leadership leadership = contenders.add().locks().lead(name, LEASE);
        await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader);

        List<String> threads = Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(thread -> thread.endsWith(name))
                .toList();

        assertThat(threads).containsExactly("locktable-leadership-" + name);
        leadership.close();
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
}
