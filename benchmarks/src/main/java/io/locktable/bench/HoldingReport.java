package io.locktable.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The report of scenarios 2 (holding) and 3 (waiting). */
final class HoldingReport {

    private static final Duration POLL_CAP = Duration.ofSeconds(10);

    private HoldingReport() {}

    static Section build(List<HoldingAndWaiting.Result> results, Plan plan) {
        Markdown md = new Markdown();
        List<Goal> goals = new ArrayList<>();
        List<String> gaps = new ArrayList<>();
        String windows = plan.windows() + " windows of " + Format.duration(plan.window());
        md.heading(2, "2. Holding cost");
        md.paragraph("Each setup holds " + plan.heldLocks() + " locks on a client of its own; its requests are counted"
                + " per lock key in " + windows + ", after a warm-up. All setups ran at the same time. Per held lock"
                + " and minute: median over locks and windows (range), and the mean.");
        List<List<String>> rows = new ArrayList<>();
        for (HoldingAndWaiting.Result r : results) {
            double bound = perMinute(r.setup().renewEvery());
            rows.add(List.of(
                    r.setup().label(),
                    Format.duration(r.setup().renewEvery()),
                    Format.medianRange(r.holdWrites(), "", 1) + ", mean "
                            + Format.num(r.holdWrites().mean()),
                    Format.medianRange(r.holdReads(), "", 1),
                    Format.num(bound)));
            if (!r.setup().peer()) {
                goals.add(new Goal(
                        "2. holding",
                        "≤ 1 write per third of the lease, no reads ("
                                + r.setup().label() + ")",
                        Format.num(r.holdWrites().mean()) + " writes/min (bound " + Format.num(bound) + "), max "
                                + Format.num(r.holdReads().max()) + " reads/min",
                        r.holdWrites().mean() <= bound + 1e-9 && r.holdReads().max() == 0));
            }
        }
        md.table(
                List.of(
                        "setup",
                        "renews every",
                        "writes / lock / min",
                        "reads / lock / min",
                        "one write per renewal period would be"),
                rows);

        md.heading(2, "3. Waiting cost");
        md.paragraph("In each setup " + plan.waiters() + " contenders wait (`acquire` with a long limit; the peer's"
                + " `acquireLock` with `additionalTimeToWaitForLock`, refresh period at its default of 1 s) on locks"
                + " that a live holder keeps renewing; their own clients count their requests in the same windows."
                + " Per waiting contender and minute: median over contenders and windows (range), and the mean.");
        List<List<String>> waitRows = new ArrayList<>();
        for (HoldingAndWaiting.Result r : results) {
            Duration poll = r.setup().peer()
                    ? Duration.ofSeconds(1)
                    : min(r.setup().lease().dividedBy(3), POLL_CAP);
            double bound = perMinute(poll);
            waitRows.add(List.of(
                    r.setup().label(),
                    Format.duration(r.setup().lease()),
                    Format.medianRange(r.waitReads(), "", 1) + ", mean "
                            + Format.num(r.waitReads().mean()),
                    Format.medianRange(r.waitWrites(), "", 1),
                    Format.num(bound),
                    Integer.toString(r.acquiredWhileHeld())));
            if (!r.setup().peer()) {
                goals.add(new Goal(
                        "3. waiting",
                        "reads only, ≤ 1 per third of the holder's lease ("
                                + r.setup().label() + ")",
                        Format.num(r.waitReads().mean()) + " reads/min (bound " + Format.num(bound) + "), max "
                                + Format.num(r.waitWrites().max()) + " writes/min",
                        r.waitReads().mean() <= bound + 1e-9 && r.waitWrites().max() == 0));
            }
        }
        md.table(
                List.of(
                        "setup",
                        "holder's lease",
                        "reads / contender / min",
                        "writes / contender / min",
                        "one read per poll period would be",
                        "contenders that got a live holder's lock"),
                waitRows);
        for (Goal goal : goals) {
            if (!goal.met() && goal.scenario().startsWith("2.")) {
                gaps.add("**2. Holding (" + goal.goal() + ").** Measured " + goal.measured() + ". LockTable renews"
                        + " each lease once per third of it with one conditional `UpdateItem` and reads nothing while"
                        + " it holds; more writes mean renewals that failed and were retried, or renewals that ran"
                        + " early, which the listener's `onRenewalFailed` and the lateness figures of section 5 would"
                        + " show.");
            }
            if (!goal.met() && goal.scenario().startsWith("3.")) {
                gaps.add("**3. Waiting (" + goal.goal() + ").** Measured " + goal.measured() + ". A waiting"
                        + " `acquire` reads once per third of the holder's lease (at most 10 s) with jitter; jitter"
                        + " that shortens the pause makes the mean rate exceed one read per third, jitter that"
                        + " lengthens it keeps it below. Writes while waiting would mean attempts to take over a lock"
                        + " whose holder renews, which should not happen.");
            }
        }
        return new Section(md, goals, gaps);
    }

    static double perMinute(Duration period) {
        return 60e9 / period.toNanos();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
