package io.locktable.samples.demo;

import io.locktable.Lease;
import io.locktable.spring.LeaderOnly;
import java.time.Duration;
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
    private final Duration work;
    private final AtomicLong runs = new AtomicLong();

    OrderSweeper(
            SweepRecords records,
            @Value("${demo.instance:local}") String instance,
            @Value("${demo.sweep-work:0ms}") Duration work) {
        this.records = records;
        this.instance = instance;
        this.work = work;
    }

    /**
     * Sweeps, on the leader of {@code order-sweeper} only; skipped on the other instances. The sweep takes its lease
     * first and writes after its work ({@code demo.sweep-work}): a process frozen in between (a long GC pause, a
     * suspended VM, {@code kill -STOP}) wakes up holding a lease that has ended, and only the token check of the
     * write stops it.
     */
    @Scheduled(fixedDelay = 1000)
    @LeaderOnly("order-sweeper")
    public void sweep() throws InterruptedException {
        Lease lease = Lease.current().orElseThrow();
        long run = runs.incrementAndGet();
        log.info("sweep {} begins with fencing token {}", run, lease.fencingToken());
        Thread.sleep(work.toMillis());
        String record = lease.fencingToken() + ":" + instance + ":" + run;
        boolean applied = records.append(lease.fencingToken(), record);
        log.info("sweep {} {}", record, applied ? "applied" : "REFUSED (a newer leader wrote first)");
    }
}
