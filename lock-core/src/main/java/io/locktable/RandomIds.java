package io.locktable;

import java.util.UUID;

/**
 * Random ids for record versions and owners: UUIDs, so no two writers ever pick the same. A lease keeps its record
 * version as the UUID's two longs and writes it in the UUID's text form.
 */
final class RandomIds {

    private RandomIds() {}

    static String next() {
        return UUID.randomUUID().toString();
    }

    /** A new record version, as a UUID. */
    static UUID nextVersion() {
        return UUID.randomUUID();
    }
}
