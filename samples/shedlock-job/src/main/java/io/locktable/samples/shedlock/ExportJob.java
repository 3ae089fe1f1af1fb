package io.locktable.samples.shedlock;

import io.locktable.Lease;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The ShedLock job, unchanged from a ShedLock application but for its fenced writes: every instance schedules it, and
 * one instance at a time runs it. A run exports a few batches and notes each step in the {@link ExportJournal} with
 * the run's fencing token, so a run that lost its lock (a process frozen past its lease) is refused there.
 *
 * <p>With LockTable's provider, {@code lockAtMostFor} is the lease, which renews itself while the run lasts: a run
 * longer than {@code lockAtMostFor} is not started again elsewhere, and {@code lockAtMostFor} is how long a crashed
 * instance keeps the job from running. {@code lockAtLeastFor} is the minimum hold, as with any provider.
 */
@Component
class ExportJob {

    private static final Logger log = LoggerFactory.getLogger(ExportJob.class);

    private final ExportJournal journal;
    private final String instance;
    private final int batches;
    private final Duration batchWork;
    private final AtomicLong runs = new AtomicLong();

    ExportJob(
            ExportJournal journal,
            @Value("${export.instance:local}") String instance,
            @Value("${export.batches:5}") int batches,
            @Value("${export.batch-work:1s}") Duration batchWork) {
        this.journal = journal;
        this.instance = instance;
        this.batches = batches;
        this.batchWork = batchWork;
    }

    /** Exports, on one instance at a time; an instance whose tick finds the lock taken skips the run. */
    @Scheduled(fixedDelayString = "${export.every:1s}")
    @SchedulerLock(
            name = "nightly-export",
            lockAtMostFor = "${export.lock-at-most-for:30s}",
            lockAtLeastFor = "${export.lock-at-least-for:5s}")
    public void export() throws InterruptedException {
        LockAssert.assertLocked(); // throws if this run was not locked
        Lease lease = Lease.current().orElseThrow(); // the run's lease, bound by the provider for the run
        long run = runs.incrementAndGet();
        log.info("export {} begins with fencing token {}", run, lease.fencingToken());
        if (!note(lease, "begins")) {
            return;
        }
        for (int batch = 1; batch <= batches; batch++) {
            Thread.sleep(batchWork.toMillis()); // the batch's work
            if (!note(lease, "batch " + batch)) {
                return;
            }
        }
        note(lease, "ends");
        log.info("export {} ends", run);
    }

    /** Notes a step with the run's token; false, and the run stops, once a run with a higher token has written. */
    private boolean note(Lease lease, String step) {
        if (journal.append(lease.fencingToken(), instance, step)) {
            return true;
        }
        log.warn(
                "{} REFUSED: a run with a higher fencing token than {} has written; this run stops",
                step,
                lease.fencingToken());
        return false;
    }
}
