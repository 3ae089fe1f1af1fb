package io.locktable.samples.demo;

import io.locktable.Lease;
import io.locktable.spring.LeaderOnly;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** The job that must run on one instance only: every second, on the leader, it appends a fenced record. */
@Component
class OrderSweeper {

    private static final Logger log = LoggerFactory.getLogger(OrderSweeper.class);

    private final SweepRecords records;
    private final String instance;
    private final AtomicLong runs = new AtomicLong();

    OrderSweeper(SweepRecords records, @Value("${demo.instance:local}") String instance) {
        this.records = records;
        this.instance = instance;
    }

    /** Sweeps, on the leader of {@code order-sweeper} only; skipped on the other instances. */
    @Scheduled(fixedDelay = 1000)
    @LeaderOnly("order-sweeper")
    public void sweep() {
        Lease lease = Lease.current().orElseThrow();
        String record = lease.fencingToken() + ":" + instance + ":" + runs.incrementAndGet();
        boolean applied = records.append(lease.fencingToken(), record);
        log.info("sweep {} {}", record, applied ? "applied" : "REFUSED (a newer leader wrote first)");
    }
}
