package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's threads start when first needed and go away when idle; its workers grow with the queued work up to
 * their bound, beyond it up to a cap for tasks that waited too long, and take the earliest deadline first. No engine.
 */
class SchedulerTest {

    private final CountDownLatch release = new CountDownLatch(1);
    private Scheduler scheduler;

    @Test
    void theTimerAndEventThreadsStartWhenNeededAndGoAwayWhenIdle() throws Exception {
        String prefix = "test-idle-" + System.nanoTime();
        scheduler = new Scheduler(prefix, 2, 2, Duration.ofMillis(200));
        assertThat(threads(prefix)).as("none before any work").isZero();
        CountDownLatch done = new CountDownLatch(3);
        scheduler.schedule(done::countDown, TimeUnit.MILLISECONDS.toNanos(10));
        scheduler.events().execute(done::countDown);
        scheduler.workers().run(done::countDown, System.nanoTime());

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(threads(prefix)).isPositive();
        await().atMost(Duration.ofSeconds(10)).until(() -> threads(prefix) == 0);

        CountDownLatch again = new CountDownLatch(1);
        scheduler.schedule(again::countDown, 0);
        assertThat(again.await(10, TimeUnit.SECONDS)).as("started again").isTrue();
    }

    @Test
    void aTableWithoutListenersHandsNothingToItsEventThread() {
        String table = "no-listeners-" + System.nanoTime();
        try (LockTable locks = LockTable.inMemory(table).build()) {
            for (int i = 0; i < 3; i++) {
                locks.tryAcquire("lock", Duration.ofSeconds(30)).orElseThrow().release();
            }
            // six events a cycle with nobody to hear them: waking a thread for each cost more processor time than
            // the rest of the library's own work on the cycle
            assertThat(threads("locktable-" + table + "-events")).isZero();
            assertThat(threads("locktable-" + table + "-timer"))
                    .as("the timer, started by the first lease")
                    .isPositive();
        }
    }

    @Test
    void queuedTasksRunEarliestDeadlineFirstWhenEveryThreadIsBusy() throws Exception {
        scheduler = new Scheduler("test-workers", 1, 1, Timing.IDLE);
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch blocking = new CountDownLatch(1);
        scheduler.run(
                () -> {
                    blocking.countDown();
                    waitFor(release);
                },
                0);
        assertThat(blocking.await(5, TimeUnit.SECONDS)).isTrue();
        // deadlines near the wrap of nanoTime: compared as differences
        long base = Long.MAX_VALUE - 15;
        scheduler.run(() -> ran.add("30"), base + 30);
        scheduler.run(() -> ran.add("10"), base + 10);
        scheduler.run(() -> ran.add("20"), base + 20);
        scheduler.run(() -> ran.add("10 again"), base + 10);

        release.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 4);
        assertThat(ran).containsExactly("10", "10 again", "20", "30");
    }

    @Test
    void aStrayInterruptOfAnIdleWorkerDoesNotStopTheWorkers() throws Exception {
        scheduler = new Scheduler("test-stray-interrupt", 1, 1, Timing.IDLE);
        CountDownLatch first = new CountDownLatch(1);
        scheduler.run(first::countDown, 0);
        assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
        Thread idle = Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.getName().startsWith("test-stray-interrupt-worker"))
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
        assertThat(scheduler.run(second::countDown, 0)).as("accepted").isTrue();
        assertThat(second.await(5, TimeUnit.SECONDS))
                .as("run after the interrupt")
                .isTrue();
    }

    @Test
    void threadsGrowWithTheQueuedWorkUpToTheBoundAndNoFurther() throws Exception {
        scheduler = new Scheduler("test-workers", 3, 3, Timing.IDLE);
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 0; i < 5; i++) {
            scheduler.run(
                    () -> {
                        started.countDown();
                        waitFor(release);
                    },
                    i);
        }

        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(scheduler.liveWorkers()).isEqualTo(3);
        assertThat(scheduler.queued()).isEqualTo(2);
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.queued() == 0);
    }

    @Test
    void oneTaskNeedsOneThread() {
        scheduler = new Scheduler("test-workers", 8, 8, Timing.IDLE);
        List<String> ran = new CopyOnWriteArrayList<>();

        scheduler.run(() -> ran.add("one"), 0);

        await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 1);
        assertThat(scheduler.liveWorkers()).isEqualTo(1);
    }

    @Test
    void theBoundRisesForTasksThatWaitedTooLongAndFallsBackWhenTheyAreDone() throws Exception {
        scheduler = new Scheduler("test-workers", 2, 10, Timing.IDLE);
        CountDownLatch started = new CountDownLatch(8);
        long due = System.nanoTime(); // due now: late once they waited 50 ms for a thread
        for (int i = 0; i < 8; i++) {
            scheduler.run(
                    () -> {
                        started.countDown();
                        waitFor(release);
                    },
                    due);
        }

        assertThat(started.await(10, TimeUnit.SECONDS))
                .as("all eight blocked at once: six threads beyond the base of two")
                .isTrue();
        assertThat(scheduler.liveWorkers()).isEqualTo(8);
        release.countDown();
        await().atMost(Duration.ofSeconds(30)).until(() -> scheduler.liveWorkers() == 2);
    }

    @Test
    void tasksThatKeepNoLeaseWaitForTheBaseWorkersAndTheOnesThatDoGoFirst() throws Exception {
        scheduler = new Scheduler("test-workers", 2, 10, Timing.IDLE);
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch firstPollDone = new CountDownLatch(1);
        List<String> ran = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 8; i++) {
            String poll = "poll " + i;
            CountDownLatch until = i == 0 ? firstPollDone : release;
            scheduler.run(
                    () -> {
                        ran.add(poll); // in the order the workers took them
                        started.countDown();
                        waitFor(until);
                    },
                    Timing.unhurriedDeadline(System.nanoTime()));
        }
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        scheduler.run(
                () -> ran.add("renewal"),
                System.nanoTime() + Duration.ofSeconds(30).toNanos());

        Thread.sleep(500); // ten times the least wait after which a task that keeps a lease adds a worker
        assertThat(scheduler.liveWorkers())
                .as("no worker added for tasks that keep no lease")
                .isEqualTo(2);
        // one worker frees up (the other stays in "poll 1"): what it takes next is the renewal, queued last, and
        // only then the next poll, on which it blocks; so the order of the list is the order of taking
        firstPollDone.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 4);
        assertThat(ran.subList(0, 2)).containsExactlyInAnyOrder("poll 0", "poll 1");
        assertThat(ran.subList(2, 4))
                .as("the renewal queued last is taken first by the worker that frees up, before the waiting polls")
                .containsExactly("renewal", "poll 2");
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> ran.size() == 9);
    }

    @Test
    void theBoundNeverRisesAboveItsCap() throws Exception {
        scheduler = new Scheduler("test-workers", 1, 3, Timing.IDLE);
        CountDownLatch started = new CountDownLatch(3);
        for (int i = 0; i < 6; i++) {
            scheduler.run(
                    () -> {
                        started.countDown();
                        waitFor(release);
                    },
                    System.nanoTime());
        }

        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.queued() == 3);
        assertThat(scheduler.liveWorkers()).isEqualTo(3);
        assertThat(scheduler.peakWorkers()).isEqualTo(3);
    }

    @Test
    void aFailingTaskDoesNotEndItsWorker() throws Exception {
        scheduler = new Scheduler("test-failing", 1, 1, Timing.IDLE);
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        scheduler.run(
                () -> {
                    ranOn.add(Thread.currentThread());
                    throw new IllegalStateException("a task that fails");
                },
                0);
        scheduler.run(
                () -> {
                    ranOn.add(Thread.currentThread());
                    throw new AssertionError("a task that throws an Error");
                },
                0);
        CountDownLatch after = new CountDownLatch(1);
        scheduler.run(
                () -> {
                    ranOn.add(Thread.currentThread());
                    after.countDown();
                },
                0);

        assertThat(after.await(5, TimeUnit.SECONDS))
                .as("run after the failures")
                .isTrue();
        assertThat(ranOn).hasSize(3).containsOnly(ranOn.get(0));
        assertThat(scheduler.liveWorkers()).isEqualTo(1);
    }

    @Test
    void closeDropsTheQueuedTasksAndRefusesNewOnes() throws Exception {
        scheduler = new Scheduler("test-close", 1, 1, Timing.IDLE);
        CountDownLatch blocking = new CountDownLatch(1);
        scheduler.run(
                () -> {
                    blocking.countDown();
                    waitFor(release);
                },
                0);
        assertThat(blocking.await(5, TimeUnit.SECONDS)).isTrue();
        List<String> ran = new CopyOnWriteArrayList<>();
        assertThat(scheduler.run(() -> ran.add("queued"), 0)).isTrue();

        scheduler.close();
        release.countDown();

        assertThat(scheduler.run(() -> ran.add("after close"), 0)).as("refused").isFalse();
        await().atMost(Duration.ofSeconds(5)).until(() -> scheduler.liveWorkers() == 0);
        assertThat(ran).as("neither ran").isEmpty();
    }

    @AfterEach
    void close() {
        release.countDown();
        if (scheduler != null) {
            scheduler.close();
        }
    }

    private static void waitFor(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix))
                .count();
    }
}
