package io.locktable;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The highest fencing token this table has seen per lock. A token that goes back means the item was deleted or a
 * multi-region table granted the lock twice: logged as an error and reported once, then the mark follows the new
 * sequence.
 */
final class FenceHighWater {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    private final ConcurrentMap<String, Long> highest = new ConcurrentHashMap<>();
    private final String tableName;
    private final LockTableListener listener;

    FenceHighWater(String tableName, LockTableListener listener) {
        this.tableName = tableName;
        this.listener = listener;
    }

    /** A token read from the item: the same token as before is normal, a lower one is a regression. */
    void observed(String name, long fence) {
        check(name, fence, false);
    }

    /** A token this table was just granted: it must be above every token seen before. */
    void granted(String name, long fence) {
        check(name, fence, true);
    }

    private void check(String name, long fence, boolean granted) {
        long[] regressedFrom = {-1};
        highest.compute(name, (key, previous) -> {
            if (previous == null) {
                return fence;
            }
            boolean wentBack = granted ? fence <= previous : fence < previous;
            if (wentBack) {
                regressedFrom[0] = previous;
                return fence;
            }
            return Math.max(previous, fence);
        });
        if (regressedFrom[0] >= 0) {
            log.error(
                    "Fencing token of lock '{}' in table '{}' went back from {} to {}: its item was deleted or"
                            + " the table takes writes in more than one region. Systems that check tokens will"
                            + " refuse the new holder.",
                    name,
                    tableName,
                    regressedFrom[0],
                    fence);
            listener.onFenceRegressed(name, regressedFrom[0], fence);
        }
    }

    long highest(String name) {
        return highest.getOrDefault(name, 0L);
    }
}
