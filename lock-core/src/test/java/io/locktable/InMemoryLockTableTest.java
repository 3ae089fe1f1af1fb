package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link LockTable#inMemory}: which tables share locks, and the argument checks of a locked run. No engine. */
class InMemoryLockTableTest {

    private static final Duration LEASE = Duration.ofSeconds(5);

    private final String tableName = "InMemory-" + UUID.randomUUID().toString().substring(0, 8);
    private final LockTable first = LockTable.inMemory(tableName).build();
    private final LockTable second = LockTable.inMemory(tableName).sortKey("sk").build();
    private final LockTable elsewhere = LockTable.inMemory(tableName + "-other").build();

    @AfterEach
    void close() {
        first.close();
        second.close();
        elsewhere.close();
    }

    @Test
    void tablesOfOneNameShareTheirLocksAndTablesOfAnotherDoNot() {
        first.tryAcquire("job", LEASE).orElseThrow();

        assertThat(second.tryAcquire("job", LEASE)).isEmpty();
        assertThat(elsewhere.tryAcquire("job", LEASE)).isPresent();
    }

    @Test
    void verifyAcceptsTheKeysItWasGiven() {
        first.verify();
        second.verify();
        assertThat(second.sortKey()).contains("sk");
        assertThat(first.partitionKey()).isEqualTo("pk");
    }

    @Test
    void aLockedRunRefusesANegativeMinimumHoldNamingTheLockAndNullWork() {
        assertThatThrownBy(() -> first.runLocked("job", LEASE, Duration.ofSeconds(-1), () -> "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minHold of lock 'job'");
        assertThatThrownBy(() -> first.runLocked("job", LEASE, Duration.ZERO, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> first.runLocked("", LEASE, Duration.ZERO, () -> "x"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> first.runLocked("job", Duration.ofMillis(10), Duration.ZERO, () -> "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseDuration of lock 'job'");
    }

    @Test
    void aBindingMakesALeaseCurrentOnItsThreadUntilClosedAndRestoresTheOneBefore() throws Exception {
        Lease outer = first.tryAcquire("outer", LEASE).orElseThrow();
        Lease inner = first.tryAcquire("inner", LEASE).orElseThrow();

        Lease.Binding outerBinding = outer.bindAsCurrent();
        Lease.Binding innerBinding = inner.bindAsCurrent();
        assertThat(Lease.current()).contains(inner);
        java.util.concurrent.CompletableFuture<java.util.Optional<Lease>> elsewhere =
                java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                    innerBinding.close(); // another thread: nothing happens
                    return Lease.current();
                });
        assertThat(elsewhere.get()).isEmpty();
        assertThat(Lease.current()).contains(inner);

        innerBinding.close();
        assertThat(Lease.current()).contains(outer);
        innerBinding.close(); // twice: nothing happens
        assertThat(Lease.current()).contains(outer);
        outerBinding.close();
        assertThat(Lease.current()).isEmpty();

        Lease.Binding first = outer.bindAsCurrent();
        Lease.Binding second = inner.bindAsCurrent();
        first.close(); // out of order: only itself is unbound
        assertThat(Lease.current()).contains(inner);
        second.close();
        assertThat(Lease.current()).isEmpty();
    }

    @Test
    void aFencedTransactionChecksTheLeaseAndFailsOnceItIsLost() {
        Lease lease = first.tryAcquire("job", LEASE).orElseThrow();
        lease.transactWrite(); // held: accepted

        lease.release();

        assertThatThrownBy(lease::transactWrite).isInstanceOf(LeaseLostException.class);
    }
}
