package io.locktable;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The highest fencing token this table has seen per lock (step 8). A token that goes back means the item was deleted
 * or a multi-region table granted the lock twice: logged as an error and reported to the listener.
 *
 * <p>Only tokens answered in a known order are compared: a request sent after the answer that showed the mark must
 * show at least the mark (more than it, for a grant, which raises the fence). Requests that overlap in time, such as
 * two threads of this table acquiring and reading one lock at once, may be answered in either order and are not
 * compared. The mark never goes down.
 */
final class FenceHighWater {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /** The highest token, and the earliest answer on the monotonic clock that showed it. */
    private record Mark(long fence, long answeredNanos, boolean reported) {}

    private final ConcurrentMap<String, Mark> marks = new ConcurrentHashMap<>();
    private final String tableName;
    private final LockTableListener listener;

    FenceHighWater(String tableName, LockTableListener listener) {
        this.tableName = tableName;
        this.listener = listener;
    }

    /** A token read from the item by a request sent and answered at the given times: the mark's token is normal. */
    void observed(String name, long fence, long sentNanos, long answeredNanos) {
        check(name, fence, sentNanos, answeredNanos, false);
    }

    /** A token this table was granted by a request sent and answered at the given times: above the mark. */
    void granted(String name, long fence, long sentNanos, long answeredNanos) {
        check(name, fence, sentNanos, answeredNanos, true);
    }

    private void check(String name, long fence, long sentNanos, long answeredNanos, boolean granted) {
        Mark[] regressed = {null};
        marks.compute(name, (key, mark) -> {
            if (mark == null || fence > mark.fence()) {
                return new Mark(fence, answeredNanos, false);
            }
            boolean ordered = sentNanos - mark.answeredNanos() >= 0; // sent after the mark was answered
            if (ordered && (granted ? fence <= mark.fence() : fence < mark.fence())) {
                regressed[0] = mark;
                return new Mark(mark.fence(), mark.answeredNanos(), true);
            }
            if (fence == mark.fence() && answeredNanos - mark.answeredNanos() < 0) {
                return new Mark(fence, answeredNanos, mark.reported()); // known earlier than thought
            }
            return mark;
        });
        Mark mark = regressed[0];
        if (mark == null) {
            return;
        }
        String message = "Fencing token of lock '{}' in table '{}' went back from {} to {}: its item was deleted or"
                + " the table takes writes in more than one region. Systems that check tokens will refuse the new"
                + " holder.";
        if (mark.reported()) {
            log.debug(message, name, tableName, mark.fence(), fence);
        } else {
            log.error(message, name, tableName, mark.fence(), fence);
        }
        listener.onFenceRegressed(name, mark.fence(), fence);
    }

    long highest(String name) {
        Mark mark = marks.get(name);
        return mark == null ? 0 : mark.fence();
    }
}
