package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;

/**
 * One identity per acquisition (issue 23, point 6): after the lock's item is deleted behind the holders' backs, a
 * second acquisition by the same table shares nothing a release or a renewal compares with the first. In memory: the
 * held check, a DynamoDB transaction, is in {@link AcquisitionIdentityEngineTest}.
 */
class AcquisitionIdentityTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    @AutoClose
    private final MemoryTables tables = new MemoryTables("AcquisitionIdentity");

    private final String name = Contenders.lockName();

    @Test
    void twoAcquisitionsOfOneTableNeverShareAnOwner() {
        LockTable locks = tables.add();
        Lease first = locks.tryAcquire(name, LEASE).orElseThrow();
        first.release();
        Lease second = locks.tryAcquire(name, LEASE).orElseThrow();

        assertThat(second.owner()).isNotEqualTo(first.owner());
        assertThat(first.owner()).startsWith(locks.owner() + ".");
        assertThat(second.owner()).startsWith(locks.owner() + ".");
        assertThat(tables.ownerOf(name)).isEqualTo(second.owner());
    }

    @Test
    void aRecreatedItemContinuesTheFenceAndTheOldLeaseNeitherReleasesNorRenewsTheNewOne() throws Exception {
        LockTable locks = tables.add();
        Lease first = locks.tryAcquire(name, LEASE).orElseThrow();
        tables.deleteItem(name); // an operator, a restore, a time to live set up by someone else

        Lease second = locks.tryAcquire(name, LEASE).orElseThrow();

        assertThat(second.fencingToken())
                .as("continues from the highest fence this table knows")
                .isEqualTo(first.fencingToken() + 1);
        first.release(); // believed held still: its release is sent, and must not free the second
        assertThat(tables.ownerOf(name)).isEqualTo(second.owner());
        assertThat(tables.add().tryAcquire(name, LEASE))
                .as("the second is held")
                .isEmpty();
        assertThat(second.isHeld()).isTrue();
    }
}
