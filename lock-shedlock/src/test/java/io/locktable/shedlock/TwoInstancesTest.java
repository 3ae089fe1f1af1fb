package io.locktable.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.shedlock.Instances.Instance;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * Two instances schedule the same ShedLock job, each through its own provider, lock table and DynamoDB client: one
 * runs it at a time, and once the instance whose job is running is killed (its requests all fail and its job
 * thread stops, so its lock is never released), the other takes the job over after the lease.
 */
@DynamoDbEngineTest
class TwoInstancesTest {

    private static final Duration LOCK_AT_MOST_FOR = Duration.ofSeconds(2);

    @AutoClose
    private final Instances instances;

    private final String name = Instances.lockName();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    /** Each run: the instance and its fencing token, in the order the runs started. */
    private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

    private record Run(String instance, long fencingToken, long startedNanos) {}

    TwoInstancesTest(DynamoDbEngine engine, TestTable table) {
        this.instances = new Instances(engine, table);
    }

    /** The job of one instance, ticking every 100 ms as a {@code @Scheduled(fixedDelay = 100)} method would. */
    private final class Scheduler extends Thread {
        private final LockingTaskExecutor executor;
        private final AtomicBoolean hang = new AtomicBoolean();
        private final CountDownLatch hanging = new CountDownLatch(1);

        Scheduler(String id, Instance instance) {
            super(() -> {}, "scheduler-" + id);
            this.executor = new DefaultLockingTaskExecutor(instance.provider());
            setDaemon(true);
        }

        @Override
        public void run() {
            while (!isInterrupted()) {
                try {
                    executor.executeWithLock(
                            (LockingTaskExecutor.Task) this::job,
                            Instances.config(name, LOCK_AT_MOST_FOR, Duration.ZERO));
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                } catch (Throwable e) {
                    if (isInterrupted() || e.getCause() instanceof InterruptedException) {
                        return; // killed in the middle of a run
                    }
                    // a failed run, as a scheduler logs it: the next tick tries again
                }
            }
        }

        private void job() throws InterruptedException {
            LockAssert.assertLocked();
            Lease lease = Lease.current().orElseThrow();
            if (running.incrementAndGet() > 1) {
                overlaps.incrementAndGet();
            }
            runs.add(new Run(getName(), lease.fencingToken(), System.nanoTime()));
            try {
                if (hang.get()) {
                    hanging.countDown();
                    Thread.sleep(Long.MAX_VALUE); // a run longer than lockAtMostFor, until the instance is killed
                }
                Thread.sleep(300);
            } finally {
                running.decrementAndGet();
            }
        }
    }

    @Test
    void oneInstanceRunsTheJobAtATimeAndTheOtherTakesOverWhenItIsKilled() throws Exception {
        Instance a = instances.add();
        Instance b = instances.add();
        Scheduler onA = new Scheduler("a", a);
        Scheduler onB = new Scheduler("b", b);
        onA.start();
        onB.start();
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() >= 8);

            onA.hang.set(true); // A's next run outlasts its lease several times over, then A is killed
            assertThat(onA.hanging.await(30, TimeUnit.SECONDS)).isTrue();
            int runsBefore = runs.size();
            await().during(LOCK_AT_MOST_FOR.multipliedBy(2))
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> runs.size() == runsBefore);
            assertThat(a.holds(name)).as("renewed while the run lasts").isTrue();

            a.cutOff();
            onA.interrupt(); // A's process dies: its release fails like every other request
            long killedAt = System.nanoTime();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> runs.stream()
                            .anyMatch(run -> run.instance().equals("scheduler-b") && run.startedNanos() > killedAt));
            Run takeover = runs.stream()
                    .filter(run -> run.startedNanos() > killedAt)
                    .findFirst()
                    .orElseThrow();
            Duration takeoverTime = Duration.ofNanos(takeover.startedNanos() - killedAt);
            System.out.println("takeover after the kill: " + takeoverTime); // in the surefire report
            assertThat(takeoverTime)
                    .as("after the lease the killed instance last renewed, within a lease and a poll more")
                    .isBetween(LOCK_AT_MOST_FOR.dividedBy(2), LOCK_AT_MOST_FOR.multipliedBy(4));
            await().atMost(Duration.ofSeconds(30)).until(() -> runs.size() >= runsBefore + 3);
        } finally {
            onA.interrupt();
            onB.interrupt();
            onA.join(10_000);
            onB.join(10_000);
        }

        assertThat(overlaps).as("runs at once").hasValue(0);
        List<Run> all = List.copyOf(runs);
        assertThat(all).extracting(Run::fencingToken).isSorted().doesNotHaveDuplicates();
        assertThat(all.subList(0, all.size() - 3)).extracting(Run::instance).contains("scheduler-a");
    }
}
