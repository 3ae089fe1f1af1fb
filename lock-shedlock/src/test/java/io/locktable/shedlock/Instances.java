package io.locktable.shedlock;

import io.locktable.LockClock;
import io.locktable.LockRecord;
import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Application instances for one test, each with a DynamoDB client of its own (as separate processes have), a fault
 * injector on it, a lock table and a provider over it. Closes them all at the end.
 */
final class Instances implements AutoCloseable {

    /** One instance: a provider over its own lock table and client. */
    record Instance(LockTableLockProvider provider, LockTable locks, FaultInjector faults) {

        /** The instance wrote the lock's current owner. */
        boolean holds(String name) {
            return locks.read(name)
                    .flatMap(LockRecord::owner)
                    .filter(owner -> owner.startsWith(locks.owner() + "."))
                    .isPresent();
        }

        /** Every request of the instance fails before it is sent, as if its process had died. */
        void cutOff() {
            for (String operation : List.of("GetItem", "UpdateItem", "PutItem", "TransactWriteItems")) {
                faults.blackhole(operation);
            }
        }
    }

    /**
     * A clock whose time never advances and whose timer never fires: a lock table on it never renews a lease, and
     * believes it holds every lease it took, as a process that froze right after its acquire.
     */
    static final LockClock FROZEN = new LockClock() {
        @Override
        public long nanoTime() {
            return 0;
        }

        @Override
        public Instant instant() {
            return Instant.now();
        }

        @Override
        public void sleep(long nanos) {
            // time does not pass
        }

        @Override
        public Future<?> schedule(Runnable task, long delayNanos) {
            return new CompletableFuture<Void>(); // never runs
        }
    };

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final List<AutoCloseable> opened = new ArrayList<>();

    Instances(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
    }

    Instance add() {
        return add(builder -> {});
    }

    Instance add(Consumer<LockTable.Builder> customizer) {
        FaultInjector faults = new FaultInjector();
        DynamoDbClient client = engine.clientBuilder()
                .endpointOverride(engine.endpoint())
                .overrideConfiguration(o -> o.addExecutionInterceptor(faults))
                .build();
        LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
        table.sortKey().ifPresent(builder::sortKey);
        customizer.accept(builder);
        LockTable locks = builder.build();
        LockTableLockProvider provider = new LockTableLockProvider(locks);
        opened.add(client);
        opened.add(locks);
        opened.add(provider);
        return new Instance(provider, locks, faults);
    }

    static String lockName() {
        return "job-" + UUID.randomUUID();
    }

    static LockConfiguration config(String name, Duration lockAtMostFor, Duration lockAtLeastFor) {
        return new LockConfiguration(ClockProvider.now(), name, lockAtMostFor, lockAtLeastFor);
    }

    @Override
    public void close() {
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                // closed by the test itself
            }
        }
    }
}
