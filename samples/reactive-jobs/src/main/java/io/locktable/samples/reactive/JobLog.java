package io.locktable.samples.reactive;

import io.locktable.Lease;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** What the jobs did: each run's lease and whether the lease was still held when its work ended. */
@Component
public class JobLog {

    private static final Logger log = LoggerFactory.getLogger(JobLog.class);

    /** A run: its lease, and whether it held the lease when its work ended. */
    public record Run(Lease lease, boolean heldAtTheEnd) {}

    private final List<Run> reports = new CopyOnWriteArrayList<>();
    private final List<Run> sweeps = new CopyOnWriteArrayList<>();

    void reported(Lease lease, boolean held) {
        reports.add(new Run(lease, held));
        log.info("report under '{}' (fencing token {}), held to its end: {}", lease.name(), lease.fencingToken(), held);
    }

    void swept(Lease lease, boolean held) {
        sweeps.add(new Run(lease, held));
        log.info("sweep under '{}' (fencing token {}), held to its end: {}", lease.name(), lease.fencingToken(), held);
    }

    public List<Run> reports() {
        return List.copyOf(reports);
    }

    public List<Run> sweeps() {
        return List.copyOf(sweeps);
    }
}
