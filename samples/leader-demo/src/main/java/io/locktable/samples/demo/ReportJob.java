package io.locktable.samples.demo;

import io.locktable.spring.LockedRun;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job that every instance schedules and one of them runs at each tick: each call takes the lock {@code
 * sales-report} for its run only, so consecutive runs may happen on different instances. Its minHold, a little
 * below the period, keeps the other instances, whose schedules tick at other moments, from running it again in the
 * same period.
 */
@Component
class ReportJob {

    private static final Logger log = LoggerFactory.getLogger(ReportJob.class);

    private final ReportLog reports;
    private final String instance;
    private final AtomicLong runs = new AtomicLong();

    ReportJob(ReportLog reports, @Value("${demo.instance:local}") String instance) {
        this.reports = reports;
        this.instance = instance;
    }

    /** Builds the report, on one instance per period of {@code demo.report.period}. */
    @Scheduled(fixedRateString = "${demo.report.period:2s}")
    @LockedRun(name = "sales-report", minHold = "${demo.report.min-hold:1500ms}")
    public void report() {
        String report = instance + ":" + runs.incrementAndGet();
        reports.add(report);
        log.info("report {}", report);
    }
}
