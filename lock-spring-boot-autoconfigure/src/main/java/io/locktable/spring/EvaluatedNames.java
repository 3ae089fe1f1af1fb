package io.locktable.spring;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The lock names evaluated from {@link LockedRun} names with {@code #{...}} parts, each with its template, for the
 * meters, which tag a lock with its template. The lock table's events reach the meters later, on its event thread,
 * and no event says that the last one of a name was delivered; so the names are kept, the most recently used last,
 * up to a bound: as many names as arguments in use (a few per job in practice) and never more than {@link #LIMIT},
 * whatever the arguments. A name pushed out is taken again at its next call. Thread-safe.
 */
final class EvaluatedNames {

    /** How many names are kept at most: bounds the memory of arguments of unbounded variety, such as user ids. */
    static final int LIMIT = 10_000;

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, String> templates = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > LIMIT;
        }
    };

    /** Notes a name evaluated from a template, before its lock is asked for. */
    void note(String name, String template) {
        lock.lock();
        try {
            templates.put(name, template);
        } finally {
            lock.unlock();
        }
    }

    /** The template a name was evaluated from, or null for a name not evaluated here (or pushed out). */
    @Nullable
    String template(String name) {
        lock.lock();
        try {
            return templates.get(name);
        } finally {
            lock.unlock();
        }
    }
}
