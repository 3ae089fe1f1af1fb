package io.locktable;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The holders one table saw, by lock name: the record version and when it was first seen on the monotonic clock, the
 * evidence of the takeover rule (steps 3 and 4). Bounded: a name's sighting is kept for sure while someone of this
 * table uses the name (an attempt under way, a waiting acquire, an election: {@link #enter}), and after that among
 * the {@link #IDLE_SIGHTINGS} most recently used idle names only, so a table that tried a hundred thousand per-entity
 * names once each keeps a few kilobytes, not megabytes.
 *
 * <p>Forgetting never weakens the takeover rule: a table that knows no holder writes on the condition that the lock
 * has no owner, and a refusal starts a new sighting dated by its answer, so a forgotten sighting can only make a
 * takeover later, never earlier. A table that polls more than {@link #IDLE_SIGHTINGS} names in turn with {@code
 * tryAcquire} may therefore never take over a crashed holder of one of them; a waiting {@code acquire} never loses its
 * sighting.
 *
 * <p>Thread-safe: one monitor, held for a map operation only, never over a request or a wait.
 */
final class Sightings {

    /** How many sightings of names not in use are kept, the most recently used ones. */
    static final int IDLE_SIGHTINGS = 256;

    /** A name in use: how many uses, and the holder seen, if any. */
    private static final class InUse {
        int users;

        Protocol.@Nullable Seen seen;

        InUse(Protocol.@Nullable Seen seen) {
            this.seen = seen;
        }
    }

    private final Map<String, InUse> inUse = new HashMap<>(); // guarded by this
    private final LinkedHashMap<String, Protocol.Seen> idle = new LinkedHashMap<>() { // guarded by this; oldest first
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, Protocol.Seen> eldest) {
                    return size() > IDLE_SIGHTINGS;
                }
            };

    /** A use of the name begins: its sighting is kept until the use {@link #leave}s. */
    synchronized void enter(String name) {
        InUse use = inUse.get(name);
        if (use == null) {
            use = new InUse(idle.remove(name));
            inUse.put(name, use);
        }
        use.users++;
    }

    /** A use begun with {@link #enter} ended: after the last one the sighting is idle, the most recent one. */
    synchronized void leave(String name) {
        InUse use = inUse.get(name);
        if (use == null || --use.users > 0) {
            return;
        }
        inUse.remove(name);
        if (use.seen != null) {
            idle.put(name, use.seen);
        }
    }

    /** {@return the holder this table saw at the lock, or null if it watches none} */
    synchronized Protocol.@Nullable Seen get(String name) {
        InUse use = inUse.get(name);
        return use != null ? use.seen : idle.get(name);
    }

    /**
     * Remembers the holder a decision saw. Two attempts of this table at once keep the earlier sight of one record
     * version: a holder's clock starts at its first sight.
     */
    synchronized void saw(String name, Protocol.Seen fresh) {
        InUse use = inUse.get(name);
        if (use != null) {
            use.seen = earlier(use.seen, fresh);
        } else {
            idle.put(name, earlier(idle.remove(name), fresh)); // again, now the most recent
        }
    }

    /** The lock was found free, taken, or handed over by this table: no holder is watched any more. */
    synchronized void forget(String name) {
        InUse use = inUse.get(name);
        if (use != null) {
            use.seen = null;
        }
        idle.remove(name);
    }

    /** {@return how many sightings are kept, of names in use and idle} */
    synchronized int size() {
        int seen = idle.size();
        for (InUse use : inUse.values()) {
            if (use.seen != null) {
                seen++;
            }
        }
        return seen;
    }

    private static Protocol.Seen earlier(Protocol.@Nullable Seen kept, Protocol.Seen fresh) {
        return kept != null && kept.rvn().equals(fresh.rvn()) ? kept : fresh;
    }
}
