package io.locktable.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The report of scenario 4. */
final class FailoverReport {

    private FailoverReport() {}

    /** The crash bound of the issue: a lease, a third of it (the last renewal's age), and 10 % of the lease. */
    static Duration crashBound(Duration lease) {
        return lease.plus(lease.dividedBy(3)).plus(lease.dividedBy(10));
    }

    static Section build(Map<Failover.Case, List<Long>> crash, Map<Failover.Case, List<Long>> graceful, int rounds) {
        Markdown md = new Markdown();
        List<Goal> goals = new ArrayList<>();
        List<String> gaps = new ArrayList<>();
        md.heading(2, "4. Failover");
        md.paragraph(
                "A child JVM takes the lock and keeps renewing it; a contender in the harness waits for it (LockTable:"
                        + " `acquire`; the peer: `acquireLock`, refresh period 1 s). After at least 1 s plus a random part of"
                        + " the holder's renewal period, the child is killed with SIGKILL (`Process.destroyForcibly`), or told"
                        + " to release. The time runs from the kill (or the release request) to the contender's `acquire`"
                        + " returning. " + rounds
                        + " rounds per kind of stop; in each round every case ran at the same time,"
                        + " each with its own child JVM and lock. Median (range) in seconds.");
        List<List<String>> rows = new ArrayList<>();
        for (Failover.Case c : crash.keySet()) {
            Summary killed = Summary.of(crash.get(c));
            Summary released = Summary.of(graceful.get(c));
            Duration bound = crashBound(c.lease());
            rows.add(List.of(
                    c.label(),
                    Format.medianRange(killed, " s", 1e9),
                    c.peer() ? "—" : Format.duration(bound),
                    Format.medianRange(released, " s", 1e9),
                    c.peer()
                            ? Format.duration(c.pollEvery())
                            : Format.duration(c.pollEvery()) + " + jitter ≤ " + Format.duration(c.pollAtMost())));
            if (!c.peer()) {
                goals.add(new Goal(
                        "4. failover",
                        "crash ≤ lease + lease/3 + 10 % of the lease (" + c.label() + ")",
                        "max " + Format.seconds(killed.max()) + " (bound " + Format.duration(bound) + ")",
                        killed.max() <= bound.toNanos()));
                goals.add(new Goal(
                        "4. failover",
                        "graceful ≤ one poll interval (" + c.label() + ")",
                        "max " + Format.seconds(released.max()) + " (poll " + Format.duration(c.pollEvery())
                                + " + jitter ≤ " + Format.duration(c.pollAtMost()) + ")",
                        released.max() <= c.pollAtMost().toNanos()));
            }
        }
        md.table(
                List.of(
                        "case",
                        "after kill -9",
                        "goal (lease × 1.433)",
                        "after a graceful release",
                        "contender polls every"),
                rows);
        md.paragraph("After a kill, both libraries take over a whole lease after the contender first saw the holder's"
                + " last record version, which was written up to one renewal period before the kill: that is why a"
                + " takeover can come sooner than one lease after the kill. After a graceful release the contender"
                + " notices at its next read: LockTable reads every third of the lease (the reads per minute of"
                + " section 3), the Lock Client every second by default, so for long leases LockTable hands over"
                + " later and reads far less while it waits.");
        for (Goal goal : goals) {
            if (!goal.met()) {
                gaps.add("**4. Failover (" + goal.goal() + ").** Measured " + goal.measured() + ". A crashed holder's"
                        + " lock is taken over a whole lease after the contender first saw its last record version,"
                        + " and the contender sees it at its next poll; a released lock at the next poll. Times above"
                        + " the bound mean polls that came late: the harness ran five child JVMs at once on 2 cores,"
                        + " and a scheduler thread that gets no CPU polls late.");
            }
        }
        return new Section(md, goals, gaps);
    }
}
