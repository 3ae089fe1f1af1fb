package io.locktable.samples.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.spring.test.ApplicationProcess;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two instances of the sample, each a JVM of its own, on the test's engine: the {@code @SchedulerLock} job runs on
 * one instance at a time, including runs longer than {@code lockAtMostFor}; once the instance whose run is under way
 * is killed with SIGKILL (no release), the other takes the job over after the lease, with a higher fencing token.
 *
 * <p>What shows one run at a time is the sample's own fenced journal, in which each run notes its steps ({@code
 * begins}, {@code batch 1}..., {@code ends}) in the order DynamoDB applied them: runs that overlapped would interleave
 * there, or the earlier one would stop without {@code ends} (its notes refused after the later one's first).
 */
@DynamoDbEngineTest
class TwoInstancesTest {

    /** {@code lockAtMostFor}: the lease, and how long a killed instance keeps the job from running. */
    private static final Duration LEASE = Duration.ofSeconds(2);

    /** Each run: six batches of 400 ms, longer than the lease, so that each run lives on renewals. */
    private static final int BATCHES = 6;

    private static final Duration BOUND = Duration.ofSeconds(40);
    /**
     * The first wait also waits for the two JVMs to start: 36 s each was seen on a 2-core machine running other builds,
     * so it has a bound of its own, and {@link #BOUND} stays the bound of what the test measures.
     */
    private static final Duration STARTUP = Duration.ofSeconds(120);

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final List<ApplicationProcess> instances = new ArrayList<>();

    TwoInstancesTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
    }

    @AfterEach
    void killInstances() throws InterruptedException {
        ApplicationProcess.killAll(instances);
    }

    private ApplicationProcess start(String name) throws Exception {
        ApplicationProcess instance = ApplicationProcess.start(
                name,
                ShedLockJobApplication.class,
                engine,
                table,
                List.of(
                        "export.instance=" + name,
                        "export.every=200ms",
                        "export.batches=" + BATCHES,
                        "export.batch-work=400ms",
                        "export.lock-at-most-for=" + LEASE.toMillis() + "ms",
                        "export.lock-at-least-for=1s"));
        instances.add(instance);
        return instance;
    }

    /** One entry of the journal: {@code <token> <instance> <step>}. */
    record Entry(long token, String instance, String step) {
        static Entry parse(String entry) {
            String[] parts = entry.split(" ", 3);
            return new Entry(Long.parseLong(parts[0]), parts[1], parts[2]);
        }
    }

    /** The entries of one run, consecutive in the journal. */
    record Run(long token, String instance, List<String> steps) {
        boolean ended() {
            return steps.get(steps.size() - 1).equals("ends");
        }
    }

    /** The journal cut into runs: consecutive entries of one token. */
    private static List<Run> runs(List<String> journal) {
        List<Run> runs = new ArrayList<>();
        for (String line : journal) {
            Entry entry = Entry.parse(line);
            Run last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
            if (last != null && last.token() == entry.token()) {
                assertThat(entry.instance())
                        .as("one instance per token: %s", journal)
                        .isEqualTo(last.instance());
                last.steps().add(entry.step());
            } else {
                runs.add(new Run(entry.token(), entry.instance(), new ArrayList<>(List.of(entry.step()))));
            }
        }
        return runs;
    }

    /** Each run's steps in order and its token higher than the runs' before; each ended but the killed one. */
    private static void assertOneRunAtATime(List<Run> runs, long killedToken) {
        List<String> steps = new ArrayList<>(List.of("begins"));
        for (int batch = 1; batch <= BATCHES; batch++) {
            steps.add("batch " + batch);
        }
        steps.add("ends");
        for (int i = 0; i < runs.size(); i++) {
            Run run = runs.get(i);
            assertThat(run.steps())
                    .as("run %s: its steps, uninterrupted by another run's", run)
                    .isEqualTo(steps.subList(0, run.steps().size()));
            if (i > 0) {
                assertThat(run.token())
                        .as("run %s after %s", run, runs.get(i - 1))
                        .isGreaterThan(runs.get(i - 1).token());
            }
            if (i < runs.size() - 1 && run.token() != killedToken) {
                assertThat(run.ended())
                        .as("run %s ended before the next began: %s", run, runs)
                        .isTrue();
            }
        }
    }

    @Test
    void oneInstanceRunsTheJobAtATimeAndTheOtherTakesOverAfterTheRunningOneIsKilled() throws Exception {
        try (LockTable locks = LockTable.builder(engine.client(), table.name(), table.partitionKey())
                .sortKey(table.sortKey().orElseThrow())
                .build()) {
            ExportJournal journal = new ExportJournal(engine.client(), locks);
            ApplicationProcess a = start("a");
            ApplicationProcess b = start("b");
            try {
                scenario(journal, a, b);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError(e.getMessage() + "\n" + a.tail() + "\n" + b.tail(), e);
            }
        }
    }

    private void scenario(ExportJournal journal, ApplicationProcess a, ApplicationProcess b) throws Exception {
        // a stretch: two whole runs, each longer than the lease, then a third just begun
        Run running = await().atMost(STARTUP)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> {
                            List<Run> runs = runs(journal.entries());
                            Run last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
                            return runs.size() >= 3 && last.steps().size() <= 2 ? last : null;
                        },
                        run -> run != null);
        ApplicationProcess holder = running.instance().equals("a") ? a : b;
        ApplicationProcess other = holder == a ? b : a;

        long killedAt = System.nanoTime();
        holder.kill(); // with at least five batches, two seconds, of its run to go
        Run takeover = await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> firstRunAfter(runs(journal.entries()), running.token()), Optional::isPresent)
                .orElseThrow();
        Duration takeoverTime = Duration.ofNanos(System.nanoTime() - killedAt);
        System.out.println("takeover after SIGKILL: " + takeoverTime + " (lease " + LEASE + ")");

        assertThat(takeover.instance()).as("the survivor runs the job").isEqualTo(other.name());
        assertThat(takeoverTime)
                .as("a lease after the killed run's last renewal (a third of a lease before the kill at most), plus"
                        + " the survivor's tick and the journal's poll")
                .isBetween(LEASE.dividedBy(2), LEASE.multipliedBy(3));

        await().atMost(BOUND)
                .until(() -> runs(journal.entries()).stream()
                        .anyMatch(run -> run.token() == takeover.token() && run.ended()));
        List<Run> runs = runs(journal.entries());
        System.out.println("runs: " + runs);
        assertOneRunAtATime(runs, running.token());
        Run killed = runs.stream()
                .filter(run -> run.token() == running.token())
                .findFirst()
                .orElseThrow();
        assertThat(killed.ended())
                .as("the killed run did not end: it held the lock when killed")
                .isFalse();
        assertThat(other.isAlive()).isTrue();
    }

    private static Optional<Run> firstRunAfter(List<Run> runs, long token) {
        return runs.stream().filter(run -> run.token() > token).findFirst();
    }
}
