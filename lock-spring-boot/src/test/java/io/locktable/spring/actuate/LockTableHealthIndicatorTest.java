package io.locktable.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The health indicator's rule, on a lock table in memory (the indicator sends no request, so no engine is needed):
 * DOWN only once failures kept coming for the down-after time without an answer in between.
 */
class LockTableHealthIndicatorTest {

    @AutoClose
    private final LockTable locks = LockTable.inMemory("Health").build();

    private final ManualClock clock = new ManualClock();

    private LockTableHealthIndicator health(Duration downAfter) {
        return new LockTableHealthIndicator(() -> locks, () -> null, downAfter, clock);
    }

    @Test
    void anInstanceThatHeardNothingIsUp() {
        Health up = health(Duration.ZERO).health();

        assertThat(up.getStatus()).isEqualTo(Status.UP);
        assertThat(up.getDetails()).containsOnlyKeys("table", "leading").containsEntry("leading", List.of());
        assertThat(up.getDetails().get("table")).isEqualTo(locks.tableName());
    }

    @Test
    void reportsDownOnlyOnceFailuresKeptComingWithoutAnAnswer() {
        LockTableHealthIndicator health = health(Duration.ofSeconds(30));

        health.onRequestFailed("orders", new IllegalStateException("boom"));
        clock.advance(Duration.ofSeconds(29));
        health.onRequestFailed("orders", new IllegalStateException("boom again"));
        Health young = health.health();
        assertThat(young.getStatus()).isEqualTo(Status.UP);
        assertThat(young.getDetails())
                .containsEntry("error", "IllegalStateException: boom again")
                .containsEntry("failingSince", "2026-12-02T10:00:00Z")
                .containsEntry("errorAt", "2026-12-02T10:00:29Z");

        health.onRequestSucceeded("orders");
        clock.advance(Duration.ofSeconds(2));
        health.onRequestFailed("orders", new IllegalStateException("boom"));
        clock.advance(Duration.ofSeconds(29));
        assertThat(health.health().getStatus())
                .as("the success in between started the count again")
                .isEqualTo(Status.UP);

        clock.advance(Duration.ofSeconds(1));
        assertThat(health.health().getStatus())
                .as("silence after a failure is no further failure")
                .isEqualTo(Status.UP);

        health.onRenewalFailed(lease("orders"), new IllegalStateException("renewal"));
        Health down = health.health();
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(down.getDetails()).containsEntry("error", "IllegalStateException: renewal");

        health.onRenewed(lease("orders"));
        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void reportsTheLastFailedRequestWithItsMessageOnlyUntilAnAnswer() {
        LockTableHealthIndicator health = health(Duration.ZERO);

        health.onRequestFailed("orders", new IllegalStateException("boom", new RuntimeException("cause")));
        Health down = health.health();
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(down.getDetails())
                .containsEntry("error", "IllegalStateException: boom")
                .containsKeys("errorAt", "failingSince");

        health.onRequestSucceeded("orders");
        Health up = health.health();
        assertThat(up.getStatus()).isEqualTo(Status.UP);
        assertThat(up.getDetails()).containsOnlyKeys("table", "leading");
    }

    @Test
    void showsTheFailingLeadershipsUntilTheirLockAnswersAndTheLastLeaseLost() {
        LockTableHealthIndicator health = health(Duration.ofSeconds(30));

        health.onLeadershipError("sweeper", new IllegalStateException("no table"), 1);
        health.onLost(lease("sweeper"), LeaseEnd.EXPIRED);
        Health failing = health.health();
        assertThat(failing.getStatus()).isEqualTo(Status.UP);
        assertThat(failing.getDetails())
                .containsEntry("failingLeaderships", Map.of("sweeper", "IllegalStateException: no table"))
                .containsEntry("lastLeaseLost", "sweeper expired at 2026-12-02T10:00:00Z");

        clock.advance(Duration.ofSeconds(30));
        health.onLeadershipError("sweeper", new IllegalStateException("no table"), 2);
        assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);

        health.onAcquired(lease("sweeper"), false);
        Health up = health.health();
        assertThat(up.getStatus()).isEqualTo(Status.UP);
        assertThat(up.getDetails()).doesNotContainKeys("failingLeaderships", "error");
    }

    @Test
    void isUnknownWithoutALockTable() {
        LockTable none = null;
        LockTableHealthIndicator health = new LockTableHealthIndicator(() -> none, () -> null);
        assertThat(health.health().getStatus()).isEqualTo(Status.UNKNOWN);
    }

    private Lease lease(String name) {
        return locks.heldLeases().stream()
                .filter(lease -> lease.name().equals(name))
                .findFirst()
                .orElseGet(() -> locks.tryAcquire(name, Duration.ofSeconds(10)).orElseThrow());
    }

    /** A clock the test moves. */
    static final class ManualClock extends Clock {
        private volatile Instant now = Instant.parse("2026-12-02T10:00:00Z");

        void advance(Duration duration) {
            now = now.plus(duration);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }
}
