/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} over a {@link
 * io.locktable.LockTable}: {@link io.locktable.integration.LockTableLockRegistry}. Its locks have the semantics of
 * {@link java.util.concurrent.locks.Lock} as Spring Integration's own registries give them (reentrant for the holding
 * thread, {@code tryLock} with a wait, {@code unlock} only by the holder), over LockTable leases that renew
 * themselves while held, compare no clocks, are taken over from a holder that stopped renewing, and carry fencing
 * tokens. {@code LockRegistryLeaderInitiator} elects one leader across instances over it. {@link
 * io.locktable.integration.LeaderEventBridge} publishes Spring Integration's leader events from the starter's
 * {@code LeaderRunner}.
 */
@NullMarked
package io.locktable.integration;

import org.jspecify.annotations.NullMarked;
