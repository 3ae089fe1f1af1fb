package io.locktable;

/** The contract on {@link LockTable#inMemory}: what users test with behaves as the engines do. No engine. */
class InMemoryContractTest extends LockTableContract {

    private final String table = "InMemoryContract-" + name.substring(name.length() - 12);

    @Override
    LockTable.Builder tableBuilder() {
        return LockTable.inMemory(table);
    }
}
