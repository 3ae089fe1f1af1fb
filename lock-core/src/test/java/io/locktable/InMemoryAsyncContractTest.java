package io.locktable;

/** The contract on {@link LockTable#inMemory} through the non-blocking API. No engine. */
class InMemoryAsyncContractTest extends InMemoryContractTest {

    @Override
    boolean async() {
        return true;
    }
}
