package io.locktable.samples.boot3;

import io.locktable.Lease;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** A ShedLock job, unchanged by the move: one instance at a time runs it, with the run's lease bound. */
@Component
class ReportJob {

    private final List<Long> tokens = new CopyOnWriteArrayList<>();

    /** Reports, on one instance at a time; an instance whose tick finds the lock taken skips the run. */
    @Scheduled(fixedDelayString = "${app.report.every:1s}")
    @SchedulerLock(name = "sales-report", lockAtMostFor = "30s")
    public void report() {
        LockAssert.assertLocked();
        Lease lease = Lease.current().orElseThrow(); // the run's lease, bound by LockTable's provider
        tokens.add(lease.fencingToken());
    }

    /** The fencing tokens of the runs so far, in order. */
    List<Long> tokens() {
        return List.copyOf(tokens);
    }
}
