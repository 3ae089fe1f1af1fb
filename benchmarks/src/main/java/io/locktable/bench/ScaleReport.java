package io.locktable.bench;

import java.util.ArrayList;
import java.util.List;

/** The report of scenario 5. */
final class ScaleReport {

    static final int MAX_RENEWAL_THREADS = 4;
    static final double MAX_BYTES_PER_LEASE = 2048;
    static final double MAX_LATENESS_SHARE = 0.05;

    private ScaleReport() {}

    static Section build(List<ScaleResult> results, List<ReleasedRetention.Result> retained, Plan plan) {
        Markdown md = new Markdown();
        List<Goal> goals = new ArrayList<>();
        List<String> gaps = new ArrayList<>();
        md.heading(2, "5. Scale: one instance holding thousands of leases");
        md.paragraph(
                "One `LockTable` (default settings: two scheduler threads) and one Lock Client (its one heartbeat"
                        + " thread) each acquire N leases on one thread and hold them. **The lease is scaled with N so that"
                        + " dynalite keeps up:** lease = 3 × N / " + plan.renewalsPerSecond()
                        + " s (at least 6 s), so the"
                        + " renewals come at about " + plan.renewalsPerSecond()
                        + " per second whatever N is; both libraries"
                        + " renew (heartbeat) every third of it. Heap per lease: heap in use after full collections, after"
                        + " acquiring minus before, divided by N. Threads: JVM threads added since before the client was built"
                        + " (the SDK client's own threads included), and the library's renewal threads by name. Lateness: a"
                        + " renewal's send time minus (the previous send of that lease + the period); for LockTable from"
                        + " `LockTableListener.onRenewed` callbacks (the callback runs on the sending thread right after the"
                        + " request), for the peer, which has no listener, from its heartbeat `UpdateItem`s. *Steady* counts"
                        + " renewals whose previous send came after the last acquire; *all* includes those that competed with"
                        + " the acquires for dynalite; a negative lateness is a renewal sent early. The libraries ran one after"
                        + " the other for each N, LockTable first. LockTable's"
                        + " per-request `apiCallTimeout` makes the SDK client start its timeout scheduler"
                        + " (`sdk-ScheduledExecutor`, five threads, per client), which the peer, setting no timeout, does not.");
        List<List<String>> rows = new ArrayList<>();
        for (ScaleResult r : results) {
            double period = r.period().toNanos();
            rows.add(List.of(
                    r.library(),
                    String.format("%,d", r.leases()),
                    Format.duration(r.lease()) + " / " + Format.duration(r.period()),
                    Format.num(r.acquireSeconds()) + " s",
                    r.threadsAdded() + " (" + describe(r.threadKinds()) + ")",
                    Integer.toString(r.renewalThreads()),
                    Format.num(r.bytesPerLease()),
                    Format.millis(r.steady().percentile(99)) + " ("
                            + percent(r.steady().percentile(99) / period) + ")",
                    Format.millis(r.lateness().percentile(99)) + " ("
                            + percent(r.lateness().percentile(99) / period) + ")",
                    Format.millis(r.lateness().max()),
                    Integer.toString(r.renewals()),
                    Integer.toString(r.lost())));
        }
        md.table(
                List.of(
                        "library",
                        "leases",
                        "lease / period",
                        "acquiring took",
                        "threads added",
                        "renewal threads",
                        "heap per lease (bytes)",
                        "lateness p99, steady",
                        "lateness p99, all",
                        "lateness max, all",
                        "renewals",
                        "lost"),
                rows);
        md.heading(3, "Beside the goals: heap left behind by released leases");
        md.paragraph("Each library ran " + String.format("%,d", plan.retentionCycles()) + " acquire + release cycles"
                + " on one lock with a lease of " + Format.duration(ReleasedRetention.LEASE) + ", holding nothing at"
                + " the end; the heap still reachable after full collections, per cycle, is what a released lease"
                + " leaves behind until the timers scheduled for it run out.");
        List<List<String>> retainedRows = new ArrayList<>();
        for (ReleasedRetention.Result r : retained) {
            retainedRows.add(List.of(r.library(), String.format("%,d", r.cycles()), Format.num(r.bytesPerCycle())));
        }
        md.table(List.of("library", "cycles", "bytes still reachable per released lease"), retainedRows);
        md.paragraph("Every LockTable request carries an `apiCallTimeout`, and the SDK's timeout scheduler keeps each"
                + " call's cancelled timeout task until its time would have come, so some bytes per released lease"
                + " stay for up to the longest request timeout; the peer sets no timeout.");
        if (!retained.isEmpty() && retained.get(0).bytesPerCycle() > MAX_BYTES_PER_LEASE / 8) {
            gaps.add("**Found beside the goals: released leases stay reachable.** "
                    + Format.num(retained.get(0).bytesPerCycle())
                    + " bytes per released lease stay on the heap after the release (table in section 5), more than"
                    + " the SDK's timeout tasks account for. Something still references released leases, such as"
                    + " renewal or expiry tasks that a release does not cancel; a heap histogram after many cycles"
                    + " (`jmap -histo:live`) names the classes. A service that takes short locks with long leases"
                    + " pays it for every acquisition within the last lease.");
        }
        List<ScaleResult> ours =
                results.stream().filter(r -> r.library().equals("LockTable")).toList();
        if (!ours.isEmpty()) {
            int minThreads =
                    ours.stream().mapToInt(ScaleResult::renewalThreads).min().orElse(0);
            int maxThreads =
                    ours.stream().mapToInt(ScaleResult::renewalThreads).max().orElse(0);
            goals.add(new Goal(
                    "5. scale",
                    "threads constant, ≤ 4 for renewals",
                    "renewal threads " + minThreads + "–" + maxThreads + ", threads added "
                            + ours.stream()
                                    .map(r -> Integer.toString(r.threadsAdded()))
                                    .toList(),
                    maxThreads <= MAX_RENEWAL_THREADS && minThreads == maxThreads));
            double maxBytes =
                    ours.stream().mapToDouble(ScaleResult::bytesPerLease).max().orElse(0);
            goals.add(new Goal(
                    "5. scale",
                    "heap per held lease ≤ 2 KB",
                    "max " + Format.num(maxBytes) + " bytes",
                    maxBytes <= MAX_BYTES_PER_LEASE));
            double worst = ours.stream()
                    .mapToDouble(r -> r.steady().percentile(99) / r.period().toNanos())
                    .max()
                    .orElse(Double.NaN);
            double worstAll = ours.stream()
                    .mapToDouble(r -> r.lateness().percentile(99) / r.period().toNanos())
                    .max()
                    .orElse(Double.NaN);
            goals.add(new Goal(
                    "5. scale",
                    "renewal lateness p99 < 5 % of the renewal interval (steady state)",
                    "worst " + percent(worst) + " steady, " + percent(worstAll) + " counting the acquire phase",
                    worst < MAX_LATENESS_SHARE));
            int lost = ours.stream().mapToInt(ScaleResult::lost).sum();
            goals.add(new Goal("5. scale", "no lease lost", lost + " lost", lost == 0));
        }
        for (Goal goal : goals) {
            if (!goal.met()) {
                gaps.add("**5. Scale (" + goal.goal() + ").** Measured " + goal.measured() + ". Per lease, LockTable"
                        + " keeps a `Lease`, its entry in the held set, a renewal and an expiry task on the timer, and"
                        + " the SDK keeps a cancelled timeout task of each request's `apiCallTimeout` until that"
                        + " timeout would have passed (the SDK's scheduler does not remove cancelled tasks). Lateness"
                        + " comes from the two worker threads waiting on dynalite while it also serves the acquires.");
            }
        }
        return new Section(md, goals, gaps);
    }

    private static String describe(java.util.Map<String, Integer> kinds) {
        List<String> parts = new ArrayList<>();
        kinds.forEach((kind, n) -> parts.add("`" + kind + "` ×" + n));
        return String.join(", ", parts);
    }

    static String percent(double share) {
        return Double.isNaN(share) ? "n/a" : Format.num(share * 100) + " %";
    }
}
