package io.locktable;

import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;

/**
 * What an election ({@link Leadership}) and a leader's run ({@link LeaderRun}) need of their table: its name for
 * messages, its acquirer, its workers, its completion executor, and whether it closed. Given to them instead of the
 * facade, so that they and {@link LockTable} do not call each other both ways.
 */
record ElectionContext(
        String tableName, Acquirer acquirer, Scheduler.Workers workers, Executor completions, BooleanSupplier closed) {

    boolean isClosed() {
        return closed.getAsBoolean();
    }
}
