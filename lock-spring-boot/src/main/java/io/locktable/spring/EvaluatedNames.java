package io.locktable.spring;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The names evaluated from {@link LockedRun} templates, with their template, for the meters, which tag a lock with its
 * template. No event says a name's last one reached them, so the most recently used names are kept, up to {@link
 * #LIMIT}; a name pushed out is noted again at its next call.
 */
final class EvaluatedNames {

    /** How many names are kept at most: bounds the memory of arguments of unbounded variety, such as user ids. */
    static final int LIMIT = 10_000;

    private final Map<String, String> templates = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
            return size() > LIMIT;
        }
    });

    /** Notes a name evaluated from a template, before its lock is asked for. */
    void note(String name, String template) {
        templates.put(name, template);
    }

    /** The template a name was evaluated from, or null for a name not evaluated here (or pushed out). */
    @Nullable
    String template(String name) {
        return templates.get(name);
    }
}
