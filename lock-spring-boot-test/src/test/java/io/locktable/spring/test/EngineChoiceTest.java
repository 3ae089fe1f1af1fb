package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.EngineCapability;
import java.net.URI;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * How {@link LockTableTestProperties#register(org.springframework.test.context.DynamicPropertyRegistry,
 * EngineCapability, EngineCapability...)} picks an engine for a test that needs transactions: moto when no engine was
 * selected (without starting dynalite), the selected engine if it has them, and otherwise a failure that says why and
 * what to install; never the engine that would let the test pass with an ERROR at each tick. The rows give moto's
 * start as a supplier, so none of them starts an engine, except the one about the engine of the run.
 */
class EngineChoiceTest {

    private static final Set<EngineCapability> TRANSACTIONS = Set.of(EngineCapability.TRANSACTIONS);
    private static final URI MOTO = URI.create("http://127.0.0.1:5555");
    private static final Supplier<DynamoDbEngine> NOT_STARTED = () -> {
        throw new AssertionError("the engine of the run is not started");
    };

    @Test
    void withNoEngineSelectedMotoIsUsedWithoutStartingDynalite() {
        LockTableTestProperties.Target target =
                LockTableTestProperties.choose(null, TRANSACTIONS, NOT_STARTED, () -> MOTO);

        assertThat(target.endpoint()).isEqualTo(MOTO);
        assertThat(target.region()).isEqualTo("us-east-1");
        assertThat(target.tableName()).startsWith("locks-");
        assertThat(target.local()).isTrue();
        assertThat(LockTableTestProperties.choose(" ", TRANSACTIONS, NOT_STARTED, () -> MOTO)
                        .tableName())
                .as("a fresh table each time")
                .isNotEqualTo(target.tableName());
    }

    @Test
    void withNoEngineSelectedAndNoMotoTheTestFailsSayingWhatToInstall() {
        Supplier<URI> notInstalled = () -> {
            throw new IllegalStateException("the moto engine needs Python 3 with moto and its server extras: install"
                    + " them (pip install 'moto[server]' for python3)");
        };

        assertThatIllegalStateException()
                .isThrownBy(() -> LockTableTestProperties.choose(null, TRANSACTIONS, NOT_STARTED, notInstalled))
                .withMessage("This test needs [TRANSACTIONS] (a fenced write, lease.heldCheck() in TransactWriteItems,"
                        + " needs TRANSACTIONS), which dynalite, the default engine, lacks; lock-test's moto has it but"
                        + " could not start: the moto engine needs Python 3 with moto and its server extras: install"
                        + " them (pip install 'moto[server]' for python3)");
    }

    @Test
    void aSelectedEngineThatLacksTransactionsFailsTheTestNamingTheSelection() {
        DynamoDbEngine engine = DynamoDbEngines.current();
        Assumptions.assumeFalse(
                engine.supports(EngineCapability.TRANSACTIONS),
                () -> "engine " + engine.name() + " has transactions: skipped");

        assertThatIllegalStateException()
                .isThrownBy(() -> LockTableTestProperties.choose(
                        engine.name(), TRANSACTIONS, DynamoDbEngines::current, () -> MOTO))
                .withMessageStartingWith("This test needs [TRANSACTIONS]")
                .withMessageContaining("the engine " + engine.name() + " selected with locktable.test.engine="
                        + engine.name() + " lacks [TRANSACTIONS]")
                .withMessageContaining("run it with -Dlocktable.test.engine=moto");
    }

    @Test
    void aSelectedEngineThatHasWhatIsNeededIsUsed() {
        DynamoDbEngine engine = DynamoDbEngines.current();
        Set<EngineCapability> had = engine.capabilities();
        Assumptions.assumeFalse(had.isEmpty(), () -> "engine " + engine.name() + " has no capability: skipped");

        assertThat(LockTableTestProperties.choose(engine.name(), had, DynamoDbEngines::current, () -> MOTO)
                        .endpoint())
                .isEqualTo(engine.endpoint());
    }
}
