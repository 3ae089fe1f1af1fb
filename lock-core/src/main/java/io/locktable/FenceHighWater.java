package io.locktable;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The highest fencing token this table has seen per lock (step 8). A token that goes back means the item was deleted
 * or a multi-region table granted the lock twice: logged as an error and reported to the listener.
 *
 * <p>Only tokens answered in a known order are compared: a request sent after the answer that showed the mark must
 * show at least the mark (more than it, for a grant, which raises the fence). Requests that overlap in time, such as
 * two threads of this table acquiring and reading one lock at once, may be answered in either order and are not
 * compared.
 *
 * <p><b>What is kept.</b> A lock is <em>in use</em> while this table holds a lease of it or has an acquire or read
 * of it under way ({@link #enter}, {@link #leave}); its mark is kept, and never goes down, for as long as it is in
 * use. Once nothing uses it, the mark joins the {@value #IDLE_MARKS} most recently idle ones, and the oldest of those
 * is forgotten: a service that locks one name per entity (order-1, order-2, …) keeps no more than that many marks,
 * whatever the number of names. A name whose mark was forgotten starts a new mark at its next answer, so a regression
 * across that idle gap goes unseen (the item keeps its fence; no alarm is ever raised falsely).
 */
final class FenceHighWater {

    /** How many marks of locks not in use are kept, the most recently used ones. */
    static final int IDLE_MARKS = 256;

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /**
     * The highest token (-1: none yet), the earliest answer that showed it, the uses under way, and whether its
     * regression was logged as an error already; 32 bytes, as a held lease keeps one.
     */
    private static final class Mark {
        long fence = -1;
        long answeredNanos;
        private int usersAndReported; // the uses times two, plus one once reported

        int users() {
            return usersAndReported >>> 1;
        }

        void use(int delta) {
            usersAndReported += 2 * delta;
        }

        boolean reported() {
            return (usersAndReported & 1) != 0;
        }

        void reported(boolean reported) {
            usersAndReported = (usersAndReported & ~1) | (reported ? 1 : 0);
        }
    }

    private final Map<String, Mark> inUse = new HashMap<>(); // guarded by this
    private final LinkedHashMap<String, Mark> idle = new LinkedHashMap<>() { // guarded by this; oldest first
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Mark> eldest) {
                    return size() > IDLE_MARKS;
                }
            };
    private final String tableName;
    private final LockTableListener listener;

    FenceHighWater(String tableName, LockTableListener listener) {
        this.tableName = tableName;
        this.listener = listener;
    }

    /** A lease, or an acquire or read, of this table on the lock begins: its mark is kept until it {@link #leave}s. */
    synchronized void enter(String name) {
        Mark mark = inUse.get(name);
        if (mark == null) {
            mark = takeIdle(name);
            inUse.put(name, mark);
        }
        mark.use(1);
    }

    /** A use begun with {@link #enter} ended: the last one moves the mark to the idle ones. */
    synchronized void leave(String name) {
        Mark mark = inUse.get(name);
        if (mark == null) {
            return;
        }
        mark.use(-1);
        if (mark.users() == 0) {
            inUse.remove(name);
            if (mark.fence >= 0) {
                idle.put(name, mark);
            }
        }
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
        long highest;
        boolean reported;
        synchronized (this) {
            Mark mark = mark(name);
            if (mark.fence < 0 || fence > mark.fence) {
                mark.fence = fence;
                mark.answeredNanos = answeredNanos;
                mark.reported(false);
                return;
            }
            boolean ordered = sentNanos - mark.answeredNanos >= 0; // sent after the mark was answered
            if (ordered && (granted ? fence <= mark.fence : fence < mark.fence)) {
                highest = mark.fence;
                reported = mark.reported();
                mark.reported(true);
            } else {
                if (fence == mark.fence && answeredNanos - mark.answeredNanos < 0) {
                    mark.answeredNanos = answeredNanos; // known earlier than thought
                }
                return;
            }
        }
        String message = "Fencing token of lock '{}' in table '{}' went back from {} to {}: its item was deleted or"
                + " the table takes writes in more than one region. Systems that check tokens will refuse the new"
                + " holder.";
        if (reported) {
            log.debug(message, name, tableName, highest, fence);
        } else {
            log.error(message, name, tableName, highest, fence);
        }
        listener.onFenceRegressed(name, highest, fence);
    }

    /** The lock's mark: in use, idle (now the most recent), or a new idle one for an answer outside any use. */
    private Mark mark(String name) {
        Mark mark = inUse.get(name);
        if (mark != null) {
            return mark;
        }
        mark = takeIdle(name);
        idle.put(name, mark); // again, now the most recent
        return mark;
    }

    /** The idle mark of a name, taken out of the idle ones, or a new mark. */
    private Mark takeIdle(String name) {
        Mark mark = idle.remove(name);
        return mark == null ? new Mark() : mark;
    }

    long highest(String name) {
        Mark mark = peek(name);
        return mark == null ? 0 : Math.max(0, mark.fence);
    }

    /** How many marks are kept, in use and idle. */
    synchronized int size() {
        return inUse.size() + idle.size();
    }

    private synchronized @Nullable Mark peek(String name) {
        Mark mark = inUse.get(name);
        return mark != null ? mark : idle.get(name);
    }
}
