package io.locktable.verification;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks a set workload's history against the set's final read, as Jepsen's set checker does: every acknowledged add
 * must be in the final read; the set's own log of the fencing tokens of the writes it applied, in order, must never
 * go back (a write of an ended lease landing after a newer holder's); and no two operations, each under an
 * acquisition of its own, may hold the same token.
 */
public final class SetChecker {

    private SetChecker() {}

    /**
     * Checks a history.
     *
     * @param ops the history
     * @param finalElements the elements of the final, strongly consistent read
     * @param tokenLog the fencing token of each write the set applied, in the order applied
     * @return what was found
     */
    public static Verdict check(List<Op> ops, Set<Long> finalElements, List<Long> tokenLog) {
        int attempts = 0;
        int ok = 0;
        int failed = 0;
        int unknown = 0;
        List<Long> lost = new ArrayList<>();
        List<Long> failedButPresent = new ArrayList<>();
        Set<Long> tokens = new HashSet<>();
        int shared = 0;
        for (Op op : ops) {
            switch (op.type()) {
                case INVOKE -> {
                    attempts++;
                    if (!tokens.add(op.token())) {
                        shared++; // each operation acquires anew: its token must be one no other holder had
                    }
                }
                case OK -> {
                    ok++;
                    if (!finalElements.contains(op.element())) {
                        lost.add(op.element());
                    }
                }
                case FAIL -> {
                    failed++;
                    if (finalElements.contains(op.element())) {
                        failedButPresent.add(op.element());
                    }
                }
                case INFO -> unknown++;
            }
        }
        int regressions = 0;
        for (int i = 1; i < tokenLog.size(); i++) {
            if (tokenLog.get(i) < tokenLog.get(i - 1)) {
                regressions++;
            }
        }
        return new Verdict(attempts, ok, failed, unknown, lost, failedButPresent, regressions, shared);
    }
}
