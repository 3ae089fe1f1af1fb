package io.locktable.verification;

import java.util.List;

/**
 * What the checker found in a history and the final read of the set.
 *
 * @param attempts operations invoked
 * @param acknowledged operations acknowledged
 * @param failed operations refused
 * @param unknown operations whose outcome is unknown
 * @param lost acknowledged elements missing from the final read: each one is a violation
 * @param failedButPresent refused elements found all the same (an SDK retry of a write that had applied): reported,
 *     not a violation, since a retried request's refusal does not prove the first attempt was not applied
 * @param tokenRegressions places where the set's log of applied writes shows a fencing token lower than the one
 *     before it: a write of an ended lease applied after a newer holder's; each one is a violation
 * @param sharedTokens operations whose lease had a fencing token another operation's lease had too: each operation
 *     runs under an acquisition of its own, and tokens rise from holder to holder; each one is a violation
 */
public record Verdict(
        int attempts,
        int acknowledged,
        int failed,
        int unknown,
        List<Long> lost,
        List<Long> failedButPresent,
        int tokenRegressions,
        int sharedTokens) {

    /** @return true when no acknowledged element was lost, no token went back and no token was granted twice */
    public boolean valid() {
        return lost.isEmpty() && tokenRegressions == 0 && sharedTokens == 0;
    }

    @Override
    public String toString() {
        return "attempts=" + attempts + " ok=" + acknowledged + " fail=" + failed + " info=" + unknown + " lost="
                + lost.size() + " failedButPresent=" + failedButPresent.size() + " tokenRegressions="
                + tokenRegressions + " sharedTokens=" + sharedTokens;
    }
}
