package io.locktable;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.TestTable;

/** The contract on the run's engine through the non-blocking API (dynalite, or moto). */
class EngineAsyncContractTest extends EngineContractTest {

    EngineAsyncContractTest(DynamoDbEngine engine, TestTable table) {
        super(engine, table);
    }

    @Override
    boolean async() {
        return true;
    }
}
