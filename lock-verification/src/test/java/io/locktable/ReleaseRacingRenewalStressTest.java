package io.locktable;

import org.junit.jupiter.api.Test;

/**
 * What stands in for the model-checked schedules while Lincheck cannot run them ({@link
 * ReleaseRacingRenewalScheduleTest}): the same race on real threads, many times. It explores schedules by chance, not
 * systematically; each round must end with nothing held and the item free.
 */
class ReleaseRacingRenewalStressTest {

    @Test
    void releaseRacingARenewalLeavesNothingHeld() {
        int rounds = Integer.getInteger("locktable.stress.rounds", 2_000);
        for (int i = 0; i < rounds; i++) {
            ReleaseRacingRenewalScheduleTest.race();
        }
    }
}
