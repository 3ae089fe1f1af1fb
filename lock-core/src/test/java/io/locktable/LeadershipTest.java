package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * {@link LockTable#lead}: an election as a handle, on one thread per lock, with no work thread per term. In memory:
 * what a request does on an engine is in {@link LeadershipEngineTest}.
 */
class LeadershipTest {

    private static final Duration LEASE = Duration.ofSeconds(3);

    @AutoClose
    private final MemoryTables tables = new MemoryTables("Leadership");

    private final String name = Contenders.lockName();

    @Test
    void oneOfTwoLeadsAndClosingItHandsTheLockToTheOtherWithTheNextToken() throws Exception {
        Leadership first = tables.add().lead(name, LEASE);
        await().atMost(Duration.ofSeconds(5)).until(first::isLeader);
        Leadership second = tables.add().lead(name, LEASE);
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
        assertThat(tables.ownerOf(name)).isNull();
    }

    @Test
    void anElectionHasNoThreadOfItsOwnHoweverManyLocksItLeads() {
        LockTable locks = tables.add();
        List<Leadership> elections = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            elections.add(locks.lead(name + "-" + i, LEASE));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> elections.stream().allMatch(Leadership::isLeader));

        List<String> threads = Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(thread -> thread.contains(name) || thread.startsWith("locktable-" + locks.tableName()))
                .toList();

        // the table's timer, its event thread and its workers (more while forty first attempts queue up, within
        // the scheduler's cap): the elections are tasks on them, with no thread per lock or per term
        assertThat(threads).noneMatch(thread -> thread.contains(name));
        assertThat(threads).hasSizeLessThanOrEqualTo(2 + Timing.MAX_WORKERS);
        elections.forEach(Leadership::close);
    }

    @Test
    void stepDownHandsTheLockToTheOtherAndContendsAgainAfterTheCoolDown() throws Exception {
        LockTable firstTable = tables.add();
        Leadership first = firstTable.lead(name, LEASE);
        await().atMost(Duration.ofSeconds(5)).until(first::isLeader);
        Leadership second = tables.add().lead(name, LEASE);
        long firstToken = first.lease().orElseThrow().fencingToken();

        first.stepDown(LEASE.multipliedBy(3));

        assertThat(first.isLeader()).isFalse();
        String owner = tables.ownerOf(name); // released before stepDown returned
        assertThat(owner == null ? "nobody" : owner).doesNotStartWith(firstTable.owner()); // the second may have it
        await().atMost(LEASE.plusSeconds(2)).until(second::isLeader);
        assertThat(second.lease().orElseThrow().fencingToken()).isEqualTo(firstToken + 1);

        second.stepDown(LEASE.multipliedBy(10)); // the first has cooled down by the time it polls again
        await().atMost(LEASE.multipliedBy(4)).until(first::isLeader);
        assertThat(first.lease().orElseThrow().fencingToken()).isEqualTo(firstToken + 2);
        assertThat(first.whenStopped()).isNotDone();
        assertThat(second.whenStopped()).isNotDone();
        first.close();
        second.close();
    }

    @Test
    void aStepDownOfAFollowerKeepsItOutOfTheElectionForTheCoolDown() throws Exception {
        Leadership follower = tables.add().lead(name, LEASE);
        follower.stepDown(LEASE.multipliedBy(2)); // before its first acquire answered, or while it waits

        Thread.sleep(LEASE.toMillis()); // the lock is free all along
        assertThat(follower.isLeader()).isFalse();
        assertThat(tables.ownerOf(name)).isNull();
        await().atMost(LEASE.multipliedBy(2)).until(follower::isLeader);
        follower.close();
    }

    @Test
    void theTermListenerHearsEachStartAndEndInOrderOnTheTablesEventThread() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        Leadership leadership = tables.add().lead(name, LEASE, new LeaderTermListener() {
            @Override
            public void onTermStarted(Lease lease) {
                heard.add("started " + lease.fencingToken() + " on "
                        + Thread.currentThread().getName());
                throw new IllegalStateException("a listener that throws does not end the leadership");
            }

            @Override
            public void onTermEnded(Lease lease) {
                heard.add("ended " + lease.fencingToken() + " " + lease.end().orElseThrow());
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader);
        long token = leadership.lease().orElseThrow().fencingToken();

        leadership.stepDown(Duration.ZERO);
        await().atMost(LEASE.plusSeconds(2)).until(leadership::isLeader);
        leadership.close();

        String events = "locktable-" + tables.tableName() + "-events-1"; // user code never runs on a timer or worker
        await().atMost(Duration.ofSeconds(2)).until(() -> heard.size() == 4);
        assertThat(heard)
                .containsExactly(
                        "started " + token + " on " + events,
                        "ended " + token + " RELEASED",
                        "started " + (token + 1) + " on " + events,
                        "ended " + (token + 1) + " RELEASED");
        assertThat(leadership.whenStopped().get(1, TimeUnit.SECONDS)).isNull();
    }

    @Test
    void whenStoppedCompletesOnlyAfterTheTermListenerHeardTheLastTermEnd() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        Leadership leadership = tables.add().lead(name, LEASE, new LeaderTermListener() {
            @Override
            public void onTermStarted(Lease lease) {}

            @Override
            public void onTermEnded(Lease lease) {
                try {
                    Thread.sleep(300); // a listener that takes a while: the stop waits for it
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                heard.add("ended " + lease.end().orElseThrow());
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader);

        leadership.stopAsync().get(5, TimeUnit.SECONDS);

        assertThat(heard).containsExactly("ended RELEASED");
    }

    @Test
    void stepDownAsyncReturnsAtOnceAndCompletesOnceReleasedAfterTheTermListenerHeardTheEnd() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        Leadership leadership = tables.add().lead(name, LEASE, new LeaderTermListener() {
            @Override
            public void onTermStarted(Lease lease) {}

            @Override
            public void onTermEnded(Lease lease) {
                heard.add("ended " + lease.end().orElseThrow());
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(leadership::isLeader);
        Lease term = leadership.lease().orElseThrow();

        leadership.stepDownAsync(LEASE.multipliedBy(10)).get(5, TimeUnit.SECONDS);

        assertThat(term.end()).contains(LeaseEnd.RELEASED);
        assertThat(heard).containsExactly("ended RELEASED");
        assertThat(tables.ownerOf(name)).isNull();
        assertThat(leadership.stepDownAsync(Duration.ZERO))
                .as("not leading: at once")
                .isDone();
        assertThat(leadership.whenStopped()).isNotDone();
        assertThatThrownBy(() -> leadership.stepDownAsync(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + name + "'");
        leadership.close();
    }

    @Test
    void aNegativeCoolDownIsRefusedNamingTheLock() {
        Leadership leadership = tables.add().lead(name, LEASE);
        try {
            assertThatThrownBy(() -> leadership.stepDown(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'" + name + "'")
                    .hasMessageContaining("negative");
        } finally {
            leadership.close();
        }
    }
}
