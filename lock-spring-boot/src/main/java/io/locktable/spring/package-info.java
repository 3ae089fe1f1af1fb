/**
 * LockTable for Spring applications: {@link io.locktable.spring.LeaderOnly} (one instance of the cluster runs a
 * method), {@link io.locktable.spring.LockedRun} (each call under a lock of its own), the {@link
 * io.locktable.spring.LeaderRunner} that keeps the leaderships, and the events they publish.
 */
@NullMarked
package io.locktable.spring;

import org.jspecify.annotations.NullMarked;
