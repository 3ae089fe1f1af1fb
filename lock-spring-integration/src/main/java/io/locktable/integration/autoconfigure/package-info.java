/**
 * The Spring Boot auto-configuration of the Spring Integration adapter: a {@link
 * io.locktable.integration.LockTableLockRegistry} over the context's {@link io.locktable.LockTable} when the context
 * defines no {@link org.springframework.integration.support.locks.LockRegistry}, and the {@link
 * io.locktable.integration.LeaderEventBridge} that turns the starter's leadership events into Spring Integration's.
 */
@NullMarked
package io.locktable.integration.autoconfigure;

import org.jspecify.annotations.NullMarked;
