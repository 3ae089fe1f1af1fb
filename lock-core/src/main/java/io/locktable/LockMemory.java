package io.locktable;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What one table remembers of each lock it uses, by name, under one monitor: the highest fencing token it saw (step
 * 8) and the holder it saw (the evidence of the takeover rule, steps 3 and 4).
 *
 * <p><b>Bounded.</b> A name's memory is kept for sure while someone of this table uses the name ({@link #enter},
 * {@link #leave}: a held lease, an attempt under way, a waiting acquire, an election, a read); after that among the
 * {@value #IDLE_NAMES} most recently used idle names only, so a service locking one name per entity keeps a few
 * kilobytes, not megabytes. Forgetting is always safe. A forgotten mark only means a regression across that gap goes
 * unseen; no alarm is ever false. A forgotten holder only makes a takeover later, never earlier: a table that knows no
 * holder writes on the condition that the lock has no owner, and a refusal starts a new sighting dated by its answer.
 * So a table that polls more than {@value #IDLE_NAMES} names in turn with {@code tryAcquire} may never take over a
 * crashed holder of one of them; a waiting {@code acquire} or an election never loses its sighting.
 *
 * <p><b>Fence marks.</b> A token that goes back (the item was deleted, or a multi-region table granted the lock
 * twice) is logged as an error and reported to the listener. Only answers in a known order are compared: a request
 * sent after the answer that showed the mark.
 *
 * <p>Thread-safe: one monitor, held for a map operation only, never over a request, a wait or a listener.
 */
final class LockMemory {

    /** How many names not in use are remembered, the most recently used ones. */
    static final int IDLE_NAMES = 256;

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /**
     * The memory of one name: the highest token (-1: none yet), the earliest answer that showed it, the uses under way,
     * whether its regression was logged as an error already, and the holder seen; while in use, also its entry in
     * {@link MarksInUse}. 48 bytes, as a held lease keeps one.
     */
    private static final class Mark {
        String name; // the name its current use entered with: the key in MarksInUse

        @Nullable
        Mark next; // the next mark of its bucket in MarksInUse

        long fence = -1;
        long answeredNanos;
        private int usersAndReported; // the uses times two, plus one once reported

        /** The holder this table saw, if it watches one: its record version and the answer that first showed it. */
        Protocol.@Nullable Seen seen;

        Mark(String name) {
            this.name = name;
        }

        int users() {
            return usersAndReported >>> 1;
        }

        void use(int delta) {
            usersAndReported += 2 * delta;
        }

        /** Whether an idle mark is worth keeping: it knows a token or a holder. */
        boolean remembersAnything() {
            return fence >= 0 || seen != null;
        }

        boolean reported() {
            return (usersAndReported & 1) != 0;
        }

        void reported(boolean reported) {
            usersAndReported = (usersAndReported & ~1) | (reported ? 1 : 0);
        }
    }

    /**
     * The marks of the locks in use, by name: a hash table whose entries are the marks themselves, chained through
     * {@link Mark#next}. A table may hold a hundred thousand leases, each keeping its lock's mark here: as its own
     * entry a mark costs 40 bytes and a slot, where a {@code HashMap} would add a 32-byte node to a 32-byte mark.
     * Like {@code HashMap}, it grows at three quarters full; unlike it, it shrinks again at an eighth, and a bucket
     * stays a list (names whose hash codes collide cost a comparison each, where {@code HashMap} would make a long
     * bucket a tree).
     */
    private static final class MarksInUse {

        private static final int MIN_BUCKETS = 16;

        private @Nullable Mark[] buckets = new Mark[MIN_BUCKETS];
        private int size;

        @Nullable
        Mark get(String name) {
            for (Mark mark = buckets[bucket(name, buckets.length)]; mark != null; mark = mark.next) {
                if (mark.name.equals(name)) {
                    return mark;
                }
            }
            return null;
        }

        /** Adds a mark whose name is not in use. */
        void add(Mark mark) {
            if (size >= buckets.length - buckets.length / 4) {
                rehash(buckets.length * 2);
            }
            link(mark, buckets);
            size++;
        }

        /** Removes a mark that is in use. */
        void remove(Mark mark) {
            int i = bucket(mark.name, buckets.length);
            Mark previous = null;
            for (Mark current = buckets[i]; current != null; previous = current, current = current.next) {
                if (current == mark) {
                    if (previous == null) {
                        buckets[i] = mark.next;
                    } else {
                        previous.next = mark.next;
                    }
                    mark.next = null;
                    size--;
                    if (buckets.length > MIN_BUCKETS && size < buckets.length / 8) {
                        rehash(buckets.length / 2); // a table that held many leases once keeps no large array
                    }
                    return;
                }
            }
        }

        int size() {
            return size;
        }

        int holdersSeen() {
            int seen = 0;
            for (Mark head : buckets) {
                for (Mark mark = head; mark != null; mark = mark.next) {
                    seen += mark.seen != null ? 1 : 0;
                }
            }
            return seen;
        }

        private void rehash(int length) {
            @Nullable Mark[] old = buckets;
            buckets = new Mark[length];
            for (Mark head : old) {
                Mark mark = head;
                while (mark != null) {
                    Mark next = mark.next;
                    link(mark, buckets);
                    mark = next;
                }
            }
        }

        private static void link(Mark mark, @Nullable Mark[] into) {
            int i = bucket(mark.name, into.length);
            mark.next = into[i];
            into[i] = mark;
        }

        private static int bucket(String name, int length) {
            int hash = name.hashCode();
            return (hash ^ (hash >>> 16)) & (length - 1); // the high bits too, as HashMap spreads them
        }
    }

    private final MarksInUse inUse = new MarksInUse(); // guarded by this
    private final LinkedHashMap<String, Mark> idle = new LinkedHashMap<>() { // guarded by this; oldest first
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Mark> eldest) {
                    return size() > IDLE_NAMES;
                }
            };
    private final String tableName;
    private final LockTableListener listener;

    LockMemory(String tableName, LockTableListener listener) {
        this.tableName = tableName;
        this.listener = listener;
    }

    /** A use of the name by this table begins (a lease, an attempt, a wait, an election, a read): kept until it {@link #leave}s. */
    synchronized void enter(String name) {
        Mark mark = inUse.get(name);
        if (mark == null) {
            mark = takeIdle(name);
            mark.name = name;
            inUse.add(mark);
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
            inUse.remove(mark);
            if (mark.remembersAnything()) {
                idle.put(name, mark);
            }
        }
    }

    /** {@return the holder this table saw at the lock, or null if it watches none} */
    synchronized Protocol.@Nullable Seen seen(String name) {
        Mark mark = peek(name);
        return mark != null ? mark.seen : null;
    }

    /**
     * Remembers the holder a decision saw. Two attempts of this table at once keep the earlier sight of one record
     * version: a holder's clock starts at its first sight.
     */
    synchronized void saw(String name, Protocol.Seen fresh) {
        Mark mark = mark(name);
        Protocol.Seen kept = mark.seen;
        mark.seen = kept != null && kept.rvn().equals(fresh.rvn()) ? kept : fresh;
    }

    /** The lock was found free, taken, or handed over by this table: no holder is watched any more. */
    synchronized void forgetHolder(String name) {
        Mark mark = peek(name);
        if (mark != null) {
            mark.seen = null;
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
        return mark == null ? new Mark(name) : mark;
    }

    long highest(String name) {
        Mark mark = peek(name);
        return mark == null ? 0 : Math.max(0, mark.fence);
    }

    /** How many names are remembered, in use and idle. */
    synchronized int size() {
        return inUse.size() + idle.size();
    }

    /** How many holders are remembered, of names in use and idle. */
    synchronized int holdersSeen() {
        int seen = 0;
        for (Mark mark : idle.values()) {
            seen += mark.seen != null ? 1 : 0;
        }
        return seen + inUse.holdersSeen();
    }

    private synchronized @Nullable Mark peek(String name) {
        Mark mark = inUse.get(name);
        return mark != null ? mark : idle.get(name);
    }
}
