package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The clock's threads start when first needed and go away when idle. No engine. */
class SystemLockClockTest {

    @Test
    void theTimerAndEventThreadsStartWhenNeededAndGoAwayWhenIdle() throws Exception {
        String prefix = "test-idle-" + System.nanoTime();
        try (SystemLockClock clock = new SystemLockClock(prefix, 2, Duration.ofMillis(200))) {
            assertThat(threads(prefix)).as("none before any work").isZero();
            CountDownLatch done = new CountDownLatch(2);
            clock.schedule(done::countDown, TimeUnit.MILLISECONDS.toNanos(10));
            clock.events().execute(done::countDown);

            assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(threads(prefix)).isPositive();
            await().atMost(Duration.ofSeconds(10)).until(() -> threads(prefix) == 0);

            CountDownLatch again = new CountDownLatch(1);
            clock.schedule(again::countDown, 0);
            assertThat(again.await(10, TimeUnit.SECONDS)).as("started again").isTrue();
        }
    }

    private static long threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith(prefix))
                .count();
    }
}
