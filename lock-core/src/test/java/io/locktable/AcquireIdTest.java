package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The id that ties an acquire's finish to its start ({@link LockTableListener#onAcquireStarted(String, long)}), for
 * every kind of acquire, and the calls without it that older listeners override. In memory, on a {@link
 * ManualLockClock}: listeners run on the thread that did the work. No engine.
 */
class AcquireIdTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    private final String tableName = "AcquireId-" + UUID.randomUUID();

    /** What a listener that overrides the calls with an id hears: "started 7", "finished 7 ACQUIRED PT1S true". */
    private static final class WithIds implements LockTableListener {
        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void onAcquireStarted(String name, long acquireId) {
            events.add("started " + acquireId);
        }

        @Override
        public void onAcquireFinished(
                String name, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
            events.add("finished " + acquireId + " " + outcome + " " + elapsed + " " + waited);
        }

        /** The ids in the order their acquires started. */
        List<Long> startedIds() {
            return events.stream()
                    .filter(event -> event.startsWith("started "))
                    .map(event -> Long.parseLong(event.substring("started ".length())))
                    .toList();
        }

        /** How long the acquire of this id took, checking its outcome and that it waited. */
        Duration finished(long id, String outcome) {
            String[] finish = finishes().get(id).split(" ");
            assertThat(finish[0]).isEqualTo(outcome);
            assertThat(finish[2]).isEqualTo("true");
            return Duration.parse(finish[1]);
        }

        /** What each id's finish said, without the id. */
        Map<Long, String> finishes() {
            return events.stream()
                    .filter(event -> event.startsWith("finished "))
                    .map(event -> event.split(" ", 3))
                    .collect(Collectors.toMap(parts -> Long.parseLong(parts[1]), parts -> parts[2]));
        }
    }

    @Test
    void twoWaitingAcquiresOfOneNameFinishInTheOtherOrderEachWithItsOwnIdOutcomeAndTime() throws Exception {
        ManualLockClock holderClock = new ManualLockClock();
        ManualLockClock waiterClock = new ManualLockClock();
        WithIds heard = new WithIds();
        try (LockTable holder = LockTable.inMemory(tableName).clock(holderClock).build();
                LockTable waiter = LockTable.inMemory(tableName)
                        .clock(waiterClock)
                        .listener(heard)
                        .build()) {
            Lease held = holder.tryAcquire("job", LEASE).orElseThrow();

            CompletableFuture<Lease> patient = waiter.acquireAsync("job", LEASE, Duration.ofMinutes(1));
            CompletableFuture<Lease> hasty = waiter.acquireAsync("job", LEASE, Duration.ofSeconds(1));
            List<Long> ids = heard.startedIds();
            assertThat(ids).hasSize(2).doesNotHaveDuplicates();
            long patientId = ids.get(0);
            long hastyId = ids.get(1);

            advanceUntilDone(waiterClock, hasty);
            assertThatThrownBy(() -> hasty.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TimeoutException.class);
            assertThat(patient).isNotDone();
            assertThat(heard.finishes()).containsOnlyKeys(hastyId);
            Duration hastyTook = heard.finished(hastyId, "TIMEOUT");
            assertThat(hastyTook).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(2));

            held.release();
            advanceUntilDone(waiterClock, patient);
            patient.get(5, TimeUnit.SECONDS).release();

            assertThat(heard.finishes()).containsOnlyKeys(hastyId, patientId);
            assertThat(heard.finished(patientId, "ACQUIRED"))
                    .as("its own wait, from its own start")
                    .isGreaterThan(hastyTook)
                    .isLessThanOrEqualTo(Duration.ofNanos(waiterClock.nanoTime()));
            assertThat(heard.events)
                    .as("started in one order, finished in the other")
                    .startsWith("started " + patientId, "started " + hastyId)
                    .element(2)
                    .asString()
                    .startsWith("finished " + hastyId + " ");
        }
    }

    /** Moves the clock on by steps, letting the attempts the timer queued run on the workers, until it is done. */
    private static void advanceUntilDone(ManualLockClock clock, CompletableFuture<?> acquire)
            throws InterruptedException {
        for (int step = 0; !acquire.isDone() && step < 600; step++) {
            clock.advance(Duration.ofMillis(100));
            Thread.sleep(10);
        }
    }

    @Test
    void everyKindOfAcquireCarriesOneIdFromItsStartToItsFinish() throws Exception {
        WithIds heard = new WithIds();
        ManualLockClock clock = new ManualLockClock();
        try (LockTable table =
                LockTable.inMemory(tableName).clock(clock).listener(heard).build()) {
            Lease lease = table.tryAcquire("try", LEASE).orElseThrow();
            assertThat(table.tryAcquire("try", LEASE)).isEmpty();
            lease.release();
            table.acquire("blocking", LEASE, Duration.ofSeconds(1)).release();
            assertThat(table.runLocked("run", LEASE, Duration.ZERO, () -> "ran"))
                    .contains("ran");
            table.tryAcquireAsync("async", LEASE)
                    .get(5, TimeUnit.SECONDS)
                    .orElseThrow()
                    .release();
            table.acquireAsync("async", LEASE).get(5, TimeUnit.SECONDS).release();
            CompletableFuture<Void> leading =
                    table.runAsLeaderAsync("leader", LEASE, term -> new CompletableFuture<>());
            CompletableFuture<Void> termStarted = CompletableFuture.runAsync(
                    () -> await().until(() -> heard.finishes().size() == 7));
            advanceUntilDone(clock, termStarted); // its attempts are on the clock's timer
            termStarted.get(5, TimeUnit.SECONDS);
            leading.cancel(true);

            assertThat(heard.startedIds()).hasSize(7).doesNotHaveDuplicates();
            assertThat(heard.finishes()).containsOnlyKeys(heard.startedIds());
            assertThat(heard.finishes().values())
                    .map(finish -> finish.split(" ")[0])
                    .containsExactlyInAnyOrder(
                            "ACQUIRED", "BUSY", "ACQUIRED", "ACQUIRED", "ACQUIRED", "ACQUIRED", "ACQUIRED");
        }
    }
}
