package io.locktable.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The runner's elections are lock-core's {@link io.locktable.Leadership}: one thread per name and none per term; a
 * yield hands the name on. Over an in-memory table (an election ended by a foreign item, which only a real table can
 * hold, is in {@link LeaderRunnerForeignItemTest}).
 */
class LeaderRunnerElectionTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration WITHIN = Duration.ofSeconds(10);

    /** A table of this test's own: in-memory locks stay until the JVM exits. */
    private final String table = "election-" + UUID.randomUUID();

    private final String name = "job-" + UUID.randomUUID();
    private final List<LeaderRunner> runners = new java.util.ArrayList<>();
    private final List<LockTable> tables = new java.util.ArrayList<>();

    @AfterEach
    void close() {
        runners.forEach(LeaderRunner::stop);
        tables.forEach(LockTable::close);
    }

    private LeaderRunner runner() {
        LockTable locks = LockTable.inMemory(table).build();
        tables.add(locks);
        LeaderRunner runner = new LeaderRunner(locks);
        runner.register(name, LEASE);
        runners.add(runner);
        return runner;
    }

    @Test
    void noNameHasAnElectionThreadOfItsOwnNorOneForTheTerm() {
        LeaderRunner runner = runner();
        runner.start();
        await().atMost(WITHIN).until(() -> runner.isLeader(name));

        List<String> threads = Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(thread -> thread.endsWith(name))
                .toList();

        assertThat(threads)
                .as("the election is tasks on the lock table's scheduler")
                .isEmpty();
    }

    @Test
    void aYieldReleasesTheLeaseAndAnotherInstanceLeadsWithTheNextToken() {
        LeaderRunner first = runner();
        first.start();
        await().atMost(WITHIN).until(() -> first.isLeader(name));
        long token = first.lease(name).orElseThrow().fencingToken();
        LeaderRunner second = runner();
        second.start();

        first.yield(name);

        assertThat(first.isLeader(name)).isFalse();
        await().atMost(LEASE.plus(WITHIN)).until(() -> second.isLeader(name));
        assertThat(second.lease(name).orElseThrow().fencingToken()).isEqualTo(token + 1);
        assertThat(first.status(name).orElseThrow().state()).isEqualTo(LeadershipState.FOLLOWING);
        assertThat(first.status(name).orElseThrow().terms()).isEqualTo(1);
    }

    @Test
    void noCallIsAdmittedFromTheYieldOnWhileTheCallsInFlightDrainAndTheStatusReadsTheElection() throws Exception {
        LeaderRunner runner = runner();
        assertThat(runner.status(name).orElseThrow().state()).isEqualTo(LeadershipState.STOPPED);
        runner.start();
        await().atMost(WITHIN).until(() -> runner.isLeader(name));
        assertThat(runner.status(name).orElseThrow().state()).isEqualTo(LeadershipState.LEADING);
        LeadershipGate gate = runner.register(name, LEASE);
        assertThat(gate.admit()).as("a call in flight on another thread").isPresent();

        java.util.concurrent.CompletionStage<Void> yielded = runner.yieldAsync(name);

        assertThat(gate.admit())
                .as("refused while the step-down waits for the call in flight, though the lease is still held")
                .isEmpty();
        assertThat(runner.isLeader(name)).isTrue();
        assertThat(runner.skipped(name)).isEqualTo(1);
        gate.leave(); // the call in flight ends: the step-down releases the lease

        yielded.toCompletableFuture().get(WITHIN.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        assertThat(runner.isLeader(name)).isFalse();
        assertThat(gate.admit())
                .as("out of the election for its cool-down, lock-core's")
                .isEmpty();
        assertThat(runner.status(name).orElseThrow().state()).isEqualTo(LeadershipState.FOLLOWING);

        runner.stop();
        assertThat(runner.status(name).orElseThrow().state()).isEqualTo(LeadershipState.STOPPED);
    }
}
