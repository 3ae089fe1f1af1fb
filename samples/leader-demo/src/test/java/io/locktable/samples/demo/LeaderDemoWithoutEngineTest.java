package io.locktable.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockTable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.bean.override.mockito.MockitoBean;

/**
 * The sample's jobs tested without any engine: with lock-spring-boot-test on the test class path, {@code
 * locktable.test.lead-everything=true} runs every {@code @LeaderOnly} and {@code @LockedRun} call with no lock
 * table at all. The schedules are off ({@code demo.scheduling=false}): the test calls the jobs. The sweep records go
 * to DynamoDB, so they are a mock here; the sweep itself fences its writes with its lease, which only an engine
 * gives ({@code Lease.current()} is empty in this mode), so it is tested in {@link LeaderDemoApplicationTest}.
 */
@SpringBootTest(properties = {"locktable.test.lead-everything=true", "demo.scheduling=false", "demo.instance=test"})
class LeaderDemoWithoutEngineTest {

    @MockitoBean
    SweepRecords records;

    @Autowired
    ReportJob job;

    @Autowired
    ReportLog reports;

    @Autowired
    ApplicationContext context;

    @Test
    void theReportRunsAtEachCallWithoutALockTable() {
        job.report();
        job.report();

        assertThat(reports.all()).containsExactly("test:1", "test:2");
        assertThat(context.getBeanNamesForType(LockTable.class)).isEmpty();
    }
}
