package io.locktable;

import java.util.UUID;

/** Random ids for record versions and owners: UUIDs, so no two writers ever pick the same. */
final class RandomIds {

    private RandomIds() {}

    static String next() {
        return UUID.randomUUID().toString();
    }
}
