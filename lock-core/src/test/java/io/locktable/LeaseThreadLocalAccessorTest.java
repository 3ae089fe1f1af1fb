package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.context.ContextExecutorService;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Lease#current()} follows Micrometer's context propagation to other threads. No engine. */
class LeaseThreadLocalAccessorTest {

    private final LockTable locks = LockTable.inMemory(
                    "Propagation-" + UUID.randomUUID().toString().substring(0, 8))
            .build();
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private final ContextSnapshotFactory snapshots =
            ContextSnapshotFactory.builder().build();

    @AfterEach
    void close() {
        pool.shutdownNow();
        locks.close();
    }

    @Test
    void theAccessorIsRegisteredByTheServiceLoader() {
        assertThat(ContextRegistry.getInstance().getThreadLocalAccessors())
                .anyMatch(accessor -> accessor instanceof LeaseThreadLocalAccessor);
    }

    @Test
    void aContextAwareExecutorRunsTheTaskWithTheSubmittersLeaseAndLeavesItsThreadClean() throws Exception {
        Lease lease = locks.tryAcquire("job", Duration.ofSeconds(5)).orElseThrow();
        ExecutorService propagating = ContextExecutorService.wrap(pool, snapshots::captureAll);

        Optional<Lease> seen;
        try (Lease.Binding binding = lease.bindAsCurrent()) {
            seen = propagating.submit(Lease::current).get(5, TimeUnit.SECONDS);
        }

        assertThat(seen).contains(lease);
        assertThat(pool.submit(Lease::current).get(5, TimeUnit.SECONDS))
                .as("the pool's thread after the task")
                .isEmpty();
    }

    @Test
    void aSnapshotWithoutALeaseHidesTheOneBoundOnTheTargetThreadForTheWorkOnly() throws Exception {
        Lease lease = locks.tryAcquire("job", Duration.ofSeconds(5)).orElseThrow();
        // taken where no lease is bound, by a factory that clears what the snapshot lacks (by default context
        // propagation leaves the target thread's own values alone)
        ContextSnapshot empty =
                ContextSnapshotFactory.builder().clearMissing(true).build().captureAll();

        try (Lease.Binding binding = lease.bindAsCurrent()) {
            Optional<Lease> during;
            try (ContextSnapshot.Scope scope = empty.setThreadLocals()) {
                during = Lease.current();
            }
            assertThat(during).isEmpty();
            assertThat(Lease.current()).as("restored after the scope").contains(lease);
        }
        assertThat(Lease.current()).isEmpty();
    }
}
