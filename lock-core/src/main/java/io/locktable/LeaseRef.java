package io.locktable;

import java.time.Duration;

/**
 * What the store needs of a held lease, and no more: the lock, the acquisition's identity (its owner and fence, which
 * a release, a renewal and a held check compare) and its duration. The store never sees the public {@link Lease}.
 *
 * @param name the lock
 * @param owner the owner this one acquisition wrote
 * @param fencingToken the fence it was granted
 * @param duration its lease
 */
record LeaseRef(String name, String owner, long fencingToken, Duration duration) {}
