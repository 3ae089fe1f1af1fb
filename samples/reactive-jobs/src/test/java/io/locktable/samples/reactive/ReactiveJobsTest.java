package io.locktable.samples.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The sample's two jobs, without an engine: with lock-spring-boot-test on the test class path, {@code
 * locktable.test.in-memory=true} makes the starter's lock table an in-memory one, and the leader runner, the locked
 * runs and the advisors work over it as in production; another in-memory table of the same name plays another
 * instance. Spring's scheduler runs the Kotlin suspend sweep every 100 ms; the report's schedule waits an hour, and
 * the test subscribes to it itself.
 */
@SpringBootTest(
        properties = {
            "locktable.test.in-memory=true",
            "locktable.dynamodb.endpoint=http://127.0.0.1:9",
            "locktable.lease-duration=2s",
            "jobs.sweep.every=100ms",
            "jobs.report.initial-delay=1h",
            "jobs.report.work=500ms"
        })
class ReactiveJobsTest {

    private static final Duration WITHIN = Duration.ofSeconds(10);

    @Autowired
    ReportJob report;

    @Autowired
    JobLog log;

    @Autowired
    LeaderRunner leaders;

    @Autowired
    LockTable locks;

    @Test
    void theMonoJobHoldsItsLockWhileItRunsAndReleasesItWhenItCompletes() throws Exception {
        try (LockTable otherInstance = LockTable.inMemory(locks.tableName()).build()) {
            CompletableFuture<Long> run = report.report().toFuture();
            await().atMost(WITHIN)
                    .until(() -> locks.heldLeases().stream()
                            .anyMatch(lease -> lease.name().equals("hourly-report")));
            Lease lease = locks.heldLeases().stream()
                    .filter(held -> held.name().equals("hourly-report"))
                    .findFirst()
                    .orElseThrow();
            assertThat(otherInstance.tryAcquire("hourly-report", Duration.ofSeconds(2)))
                    .as("held while the Mono runs")
                    .isEmpty();

            assertThat(run.get(WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(lease.fencingToken());
            assertThat(log.reports()).singleElement().satisfies(done -> {
                assertThat(done.lease()).as("the lease, bound").isSameAs(lease);
                assertThat(done.heldAtTheEnd())
                        .as("held to the end of the work")
                        .isTrue();
            });
            assertThat(lease.end()).as("released when the Mono completed").contains(LeaseEnd.RELEASED);
            assertThat(otherInstance.tryAcquire("hourly-report", Duration.ofSeconds(2)))
                    .isPresent();
        }
    }

    @Test
    void theSuspendJobRunsOnTheLeaderUnderTheTermsLease() {
        await().atMost(WITHIN).until(() -> log.sweeps().size() >= 3);
        Lease term = leaders.lease("order-sweeper").orElseThrow();
        assertThat(log.sweeps()).allSatisfy(sweep -> {
            assertThat(sweep.lease()).as("the term's lease, bound").isSameAs(term);
            assertThat(sweep.heldAtTheEnd()).as("held to the end of the work").isTrue();
        });
    }
}
