package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * Controlled thread schedules with Lincheck's model checking: a caller's {@code release()} racing the renewal that the
 * clock's advance runs on another thread, over the in-memory table. Every explored schedule must end with the lease
 * ended as RELEASED or LOST, the item without this acquisition as owner, and no lease left held.
 */
class ReleaseRacingRenewalScheduleTest {

    private static final AtomicLong TABLES = new AtomicLong();
    private static final Duration LEASE = Duration.ofSeconds(3);

    @Test
    @Disabled("Lincheck 3.7 reports 'Concurrent test has hung' on the first schedules, with no trace, while the same"
            + " scenario on real threads completes 20,000 times in a row (ReleaseRacingRenewalStressTest); not yet"
            + " known which part of the path the model checker cannot step through. Run it with"
            + " -Dlocktable.schedules=100 after removing this annotation.")
    void releaseRacingARenewalLeavesNothingHeld() {
        race(); // loads and initialises the classes outside the model checker, which counts their work as the test's
        Lincheck.runConcurrentTest(
                Integer.getInteger("locktable.schedules", 10_000), ReleaseRacingRenewalScheduleTest::race);
    }

    /** One race: a release on one thread, the advance that runs the due renewal on another. */
    static void race() {
        {
            ManualLockClock clock = new ManualLockClock();
            LockTable table = LockTable.inMemory("schedule-" + TABLES.incrementAndGet())
                    .clock(clock)
                    .build();
            Lease lease = table.tryAcquire("race", LEASE).orElseThrow();
            Thread releaser = new Thread(lease::release);
            Thread timer = new Thread(() -> clock.advance(LEASE.dividedBy(3))); // the renewal falls due
            releaser.start();
            timer.start();
            join(releaser);
            join(timer);
            assertThat(lease.isHeld()).as("held after release").isFalse();
            assertThat(table.heldLeases()).isEmpty();
            assertThat(table.read("race").orElseThrow().owner())
                    .as("owner after the release")
                    .isEmpty();
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join(10_000);
            if (thread.isAlive()) {
                throw new AssertionError("the race hung: " + java.util.Arrays.toString(thread.getStackTrace()));
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
