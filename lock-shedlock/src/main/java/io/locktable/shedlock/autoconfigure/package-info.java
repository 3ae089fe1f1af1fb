/**
 * The Spring Boot auto-configuration of the ShedLock provider: a {@link io.locktable.shedlock.LockTableLockProvider}
 * bean over the context's {@link io.locktable.LockTable} when ShedLock is on the class path and the context defines
 * no {@link net.javacrumbs.shedlock.core.LockProvider} of its own.
 */
@NullMarked
package io.locktable.shedlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
