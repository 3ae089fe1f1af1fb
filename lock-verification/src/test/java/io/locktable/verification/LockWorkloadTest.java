package io.locktable.verification;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.EngineAssumptions;
import io.locktable.test.EngineCapability;
import io.locktable.test.TestTable;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The lock workload's bounded runs. The unfenced variant is the negative control: the checker must find lost
 * elements there, or it could not find them anywhere. A longer run: {@code -Dlocktable.workload.seconds=600
 * -Dlocktable.workload.seed=7}.
 */
@DynamoDbEngineTest
class LockWorkloadTest {

    private static final Duration DURATION = Duration.ofSeconds(Long.getLong("locktable.workload.seconds", 20));
    private static final long SEED = Long.getLong("locktable.workload.seed", System.currentTimeMillis() % 10_000);

    private final DynamoDbEngine engine;
    private final TestTable table;

    LockWorkloadTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
    }

    @Test
    void unfencedWritesLoseAcknowledgedElementsUnderPauses() throws Exception {
        WorkloadResult result =
                LockWorkload.run(engine, table, WorkloadSettings.bounded(Variant.UNFENCED, DURATION, SEED));
        System.out.println(result);
        assertThat(result.pauses()).as("pauses").isPositive();
        assertThat(result.verdict().lost())
                .as("the negative control: a plain write after a pause must lose elements (%s)", result)
                .isNotEmpty();
    }

    @Test
    void writesWithTheHeldCheckLoseNothing() throws Exception {
        EngineAssumptions.assumeCapability(engine, EngineCapability.TRANSACTIONS);
        assertValid(LockWorkload.run(engine, table, WorkloadSettings.bounded(Variant.HELD_CHECK, DURATION, SEED)));
    }

    @Test
    void writesFencedByTheTokenLoseNothing() throws Exception {
        assertValid(LockWorkload.run(engine, table, WorkloadSettings.bounded(Variant.FENCING_TOKEN, DURATION, SEED)));
    }

    private static void assertValid(WorkloadResult result) {
        System.out.println(result);
        assertThat(result.pauses()).as("pauses").isPositive();
        assertThat(result.verdict().acknowledged()).as("acknowledged adds").isPositive();
        assertThat(result.verdict().lost()).as("lost elements (%s)", result).isEmpty();
        assertThat(result.verdict().tokenRegressions())
                .as("token regressions (%s)", result)
                .isZero();
        assertThat(result.verdict().sharedTokens())
                .as("fencing tokens held by two operations (%s)", result)
                .isZero();
    }
}
