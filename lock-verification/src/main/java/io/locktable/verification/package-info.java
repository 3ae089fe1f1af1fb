/**
 * Verification of lock-core, not shipped to users: a Jepsen-style lock workload over a real engine with a history
 * checker ({@link io.locktable.verification.LockWorkload}, {@link io.locktable.verification.SetChecker}).
 */
@NullMarked
package io.locktable.verification;

import org.jspecify.annotations.NullMarked;
