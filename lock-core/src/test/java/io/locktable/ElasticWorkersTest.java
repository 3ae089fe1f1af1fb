package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The worker threads grow with the queued work up to their bound, beyond it up to a cap for tasks that waited too long,
 * and take the earliest deadline first. No engine.
 */
class ElasticWorkersTest {

    private final CountDownLatch release = new CountDownLatch(1);
    private ElasticWorkers workers;

    @Test
    void queuedTasksRunEarliestDeadlineFirstWhenEveryThreadIsBusy() throws Exception {
        workers = new ElasticWorkers(1, Threads.daemons("test-workers"));
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch blocking = new CountDownLatch(1);
        workers.run(
                () -> {
                    blocking.countDown();
                    waitFor(release);
                },
                0);
        assertThat(blocking.await(5, TimeUnit.SECONDS)).isTrue();
        // deadlines near the wrap of nanoTime: compared as differences
        long base = Long.MAX_VALUE - 15;
        workers.run(() -> ran.add("30"), base + 30);
        workers.run(() -> ran.add("10"), base + 10);
        workers.run(() -> ran.add("20"), base + 20);
        workers.run(() -> ran.add("10 again"), base + 10);

        release.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 4);
        assertThat(ran).containsExactly("10", "10 again", "20", "30");
    }

    @Test
    void aStrayInterruptOfAnIdleWorkerDoesNotStopTheWorkers() throws Exception {
        workers = new ElasticWorkers(1, Threads.daemons("test-stray-interrupt"));
        CountDownLatch first = new CountDownLatch(1);
        workers.run(first::countDown, 0);
        assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
        Thread idle = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("test-stray-interrupt"))
                .findFirst()
                .orElseThrow();
        await().atMost(Duration.ofSeconds(5)).until(() -> idle.getState() == Thread.State.TIMED_WAITING);

        idle.interrupt(); // code that interrupts every thread of a group, say
        // once the worker has taken the interrupt (its flag is cleared when the wait throws), it waits again or,
        // before the fix, ends and closes the workers; only then is the next task given
        await().atMost(Duration.ofSeconds(5)).until(() -> !idle.isInterrupted());
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !idle.isAlive() || idle.getState() == Thread.State.TIMED_WAITING);

        CountDownLatch second = new CountDownLatch(1);
        assertThat(workers.run(second::countDown, 0)).as("accepted").isTrue();
        assertThat(second.await(5, TimeUnit.SECONDS))
                .as("run after the interrupt")
                .isTrue();
    }

    @Test
    void threadsGrowWithTheQueuedWorkUpToTheBoundAndNoFurther() throws Exception {
        workers = new ElasticWorkers(3, Threads.daemons("test-workers"));
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 0; i < 5; i++) {
            workers.run(
                    () -> {
                        started.countDown();
                        waitFor(release);
                    },
                    i);
        }

        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(workers.threads()).isEqualTo(3);
        assertThat(workers.queued()).isEqualTo(2);
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> workers.queued() == 0);
    }

    @Test
    void oneTaskNeedsOneThread() {
        workers = new ElasticWorkers(8, Threads.daemons("test-workers"));
        List<String> ran = new CopyOnWriteArrayList<>();

        workers.run(() -> ran.add("one"), 0);

        await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 1);
        assertThat(workers.threads()).isEqualTo(1);
    }

    @Test
    void theBoundRisesForTasksThatWaitedTooLongAndFallsBackWhenTheyAreDone() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            workers = new ElasticWorkers(2, 10, Threads.daemons("test-workers"), timer);
            CountDownLatch started = new CountDownLatch(8);
            long due = System.nanoTime(); // due now: late once they waited 50 ms for a thread
            for (int i = 0; i < 8; i++) {
                workers.run(
                        () -> {
                            started.countDown();
                            waitFor(release);
                        },
                        due);
            }

            assertThat(started.await(10, TimeUnit.SECONDS))
                    .as("all eight blocked at once: six threads beyond the base of two")
                    .isTrue();
            assertThat(workers.threads()).isEqualTo(8);
            release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> workers.threads() == 2);
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void theBoundNeverRisesAboveItsCap() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            workers = new ElasticWorkers(1, 3, Threads.daemons("test-workers"), timer);
            CountDownLatch started = new CountDownLatch(3);
            for (int i = 0; i < 6; i++) {
                workers.run(
                        () -> {
                            started.countDown();
                            waitFor(release);
                        },
                        System.nanoTime());
            }

            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> workers.queued() == 3);
            assertThat(workers.threads()).isEqualTo(3);
            assertThat(workers.peakThreads()).isEqualTo(3);
        } finally {
            timer.shutdownNow();
        }
    }

    @AfterEach
    void close() {
        release.countDown();
        workers.close();
    }

    private static void waitFor(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
