package io.locktable.samples.reactive;

import io.locktable.Lease;
import io.locktable.spring.LockedRun;
import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * A reactive job under a lock of its own: Spring's scheduler calls {@link #report()} once and subscribes to the
 * {@code Mono} at each tick; {@code @LockedRun} takes the lock at the subscription (the instance that gets it runs
 * the report, the others complete empty), holds it, renewed, while the report runs, and releases it when the
 * {@code Mono} completes, fails or is cancelled. The lease is bound while the method runs, and, with Reactor's
 * automatic context propagation ({@link ReactiveJobsApplication}), on the threads the {@code Mono} runs on.
 */
@Component
public class ReportJob {

    private final JobLog log;
    private final Duration work;

    public ReportJob(JobLog log, @Value("${jobs.report.work:200ms}") Duration work) {
        this.log = log;
        this.work = work;
    }

    /** The report: some non-blocking work, then a note of the lease it ran under and whether it still held it. */
    @Scheduled(fixedDelayString = "${jobs.report.every:1s}", initialDelayString = "${jobs.report.initial-delay:0s}")
    @LockedRun(name = "hourly-report")
    public Mono<Long> report() {
        Lease lease = Lease.current().orElseThrow(); // the run's lease: the method runs at the subscription
        return Mono.delay(work).map(ignored -> {
            // on Reactor's timer thread: the same lease, carried by Reactor's context propagation
            Lease current = Lease.current().orElseThrow();
            log.reported(current, current == lease && current.isHeld());
            return current.fencingToken();
        });
    }
}
