package io.locktable.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The sample's jobs tested without any engine and without mocks: with lock-spring-boot-test on the test class path,
 * {@code locktable.test.in-memory=true} makes the starter's lock table an in-memory one, and the leader runner, the
 * locked runs and the advisors work over it as in production. So the sweep, whose first line is {@code
 * Lease.current().orElseThrow()}, runs with this instance's real lease, and the report takes its lock. The schedules
 * are off ({@code demo.scheduling=false}): the test calls the jobs.
 *
 * <p>The sweep's own writes are not locks: {@link SweepRecords} appends to an item of DynamoDB through the client.
 * The test replaces it with {@link FencedRecordsInMemory}, which keeps the same rule (a record is applied only with a
 * fencing token at least as high as the last one applied) in memory; {@code @Primary}, it is the one the sweeper and
 * the controller get. The client the sample's {@code SweepRecords} bean is built with points at a port where nothing
 * answers ({@code locktable.dynamodb.endpoint}): any request for the locks would fail the test, and none is sent,
 * although {@code locktable.create-table=true} is set. What DynamoDB does with the fenced update is tested on an
 * engine, in {@link LeaderDemoApplicationTest}.
 */
@SpringBootTest(
        properties = {
            "locktable.test.in-memory=true",
            "locktable.dynamodb.endpoint=http://127.0.0.1:9",
            "demo.scheduling=false",
            "demo.instance=test",
            "demo.report.min-hold=0s"
        })
class LeaderDemoWithoutEngineTest {

    @Autowired
    OrderSweeper sweeper;

    @Autowired
    SweepRecords records;

    @Autowired
    ReportJob job;

    @Autowired
    ReportLog reports;

    @Autowired
    LeaderRunner leaders;

    @Autowired
    LockTable locks;

    @Test
    void theSweepRunsWithThisInstancesLeaseAndFencesWithItsToken() throws InterruptedException {
        Lease lease = leaders.lease("order-sweeper")
                .orElseThrow(() -> new AssertionError("the only instance on its in-memory table leads at once"));

        sweeper.sweep();
        sweeper.sweep();

        assertThat(locks.tableName()).startsWith("LeaderDemo-in-memory-");
        assertThat(records.all())
                .as("fence:instance:run, the fence of the lease that was Lease.current() in the sweep")
                .containsExactly(lease.fencingToken() + ":test:1", lease.fencingToken() + ":test:2");
        assertThat(records.append(lease.fencingToken() - 1, "stale"))
                .as("a lower token is refused, as DynamoDB's condition does")
                .isFalse();
    }

    @Test
    void theReportTakesItsLockAtEachCall() {
        job.report();
        job.report();

        assertThat(reports.all()).containsExactly("test:1", "test:2");
        assertThat(locks.read("sales-report"))
                .as("the lock's item, in memory: two runs, each under a lock of its own")
                .hasValueSatisfying(item -> assertThat(item.fencingToken()).isEqualTo(2));
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class InMemoryRecords {

        @Bean
        @Primary
        FencedRecordsInMemory fencedRecordsInMemory(DynamoDbClient client, LockTable locks) {
            return new FencedRecordsInMemory(client, locks);
        }
    }

    /** The sweep log of {@link SweepRecords} and its fencing rule, kept in memory instead of an item of DynamoDB. */
    static final class FencedRecordsInMemory extends SweepRecords {

        private final List<String> applied = new ArrayList<>();
        private long lastFence = Long.MIN_VALUE;

        FencedRecordsInMemory(DynamoDbClient client, LockTable locks) {
            super(client, locks);
        }

        @Override
        synchronized boolean append(long fence, String record) {
            if (fence < lastFence) {
                return false;
            }
            lastFence = fence;
            applied.add(record);
            return true;
        }

        @Override
        synchronized List<String> all() {
            return List.copyOf(applied);
        }
    }
}
