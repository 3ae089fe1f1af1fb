package io.locktable.samples.demo;

import io.locktable.Lease;
import io.locktable.spring.LeaderRunner;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** What the demo script reads: whether this instance leads, with which token, and the sweep log. */
@RestController
class DemoController {

    private final LeaderRunner leaders;
    private final SweepRecords records;
    private final String instance;

    DemoController(LeaderRunner leaders, SweepRecords records, @Value("${demo.instance:local}") String instance) {
        this.leaders = leaders;
        this.records = records;
        this.instance = instance;
    }

    @GetMapping("/demo/status")
    Map<String, Object> status() {
        boolean leading = leaders.isLeader("order-sweeper");
        long fence = leaders.lease("order-sweeper").map(Lease::fencingToken).orElse(0L);
        return Map.of("instance", instance, "leader", leading, "fencingToken", fence);
    }

    @GetMapping("/demo/records")
    List<String> records() {
        return records.all();
    }
}
