package io.locktable.samples.demo;

import io.locktable.Lease;
import io.locktable.spring.LeaderRunner;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** What the demo script reads: whether this instance leads, with which token, the sweep log and the reports. */
@RestController
class DemoController {

    private final ObjectProvider<LeaderRunner> leaders;
    private final SweepRecords records;
    private final ReportLog reports;
    private final String instance;

    DemoController(
            ObjectProvider<LeaderRunner> leaders,
            SweepRecords records,
            ReportLog reports,
            @Value("${demo.instance:local}") String instance) {
        this.leaders = leaders;
        this.records = records;
        this.reports = reports;
        this.instance = instance;
    }

    /** Whether this instance leads; never without a leader runner (locktable.leader.enabled=false). */
    @GetMapping("/demo/status")
    Map<String, Object> status() {
        LeaderRunner runner = leaders.getIfUnique();
        boolean leading = runner != null && runner.isLeader("order-sweeper");
        long fence = runner == null
                ? 0L
                : runner.lease("order-sweeper").map(Lease::fencingToken).orElse(0L);
        return Map.of("instance", instance, "leader", leading, "fencingToken", fence);
    }

    @GetMapping("/demo/reports")
    List<String> reports() {
        return reports.all();
    }

    @GetMapping("/demo/records")
    List<String> records() {
        return records.all();
    }
}
