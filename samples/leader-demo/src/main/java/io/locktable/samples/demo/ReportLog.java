package io.locktable.samples.demo;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.stereotype.Component;

/** The reports this instance built, in memory: what the demo shows of the {@code @LockedRun} job. */
@Component
class ReportLog {

    private final List<String> reports = new CopyOnWriteArrayList<>();

    void add(String report) {
        reports.add(report);
    }

    /** The reports built here, each {@code instance:run}. */
    List<String> all() {
        return List.copyOf(reports);
    }
}
