package io.locktable;

import java.util.UUID;

/** Fresh record versions and owner ids: random, so no two writers ever pick the same. */
final class RecordVersions {

    private RecordVersions() {}

    static String next() {
        return UUID.randomUUID().toString();
    }
}
