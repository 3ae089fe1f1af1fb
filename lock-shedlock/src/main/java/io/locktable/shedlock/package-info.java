/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} over a {@link io.locktable.LockTable}: {@link
 * io.locktable.shedlock.LockTableLockProvider}. {@code @SchedulerLock} jobs keep their annotations; each run holds a
 * LockTable lease that renews itself while the job runs, so {@code lockAtMostFor} no longer has to guess how long the
 * longest run takes, no two machines' clocks are compared, and a release never frees the lock of a new holder.
 * Works with ShedLock 6 and 7.
 */
@NullMarked
package io.locktable.shedlock;

import org.jspecify.annotations.NullMarked;
