package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * One simulated process's view of the shared in-memory table: the real {@link MemoryLockStore} behind a network whose
 * faults the simulation's seed chooses. It also checks, on every write it applies, that a renewal, a release or a
 * give-back never changed an item another acquisition owns.
 */
final class SimStore implements LockStore {

    /** What the store needs of the simulation. */
    interface World {
        SimFault fault(SimProcess process, String operation);

        /** Moves the world on while {@code process} waits for a late answer. */
        void answerLate(SimProcess process);

        /** Applies a request later, as a request the client gave up on still reaching the table. */
        void landLater(SimProcess process, Runnable apply);

        /** An item was written: the liveness check follows when locks are free. */
        void written(String name);

        /**
         * An acquire was applied: the fencing token check. {@code floor} is the highest token the table remembered
         * for the lock when it sent the acquire; {@code memoryFull} whether it remembered as many names as it keeps,
         * so that it may have forgotten this one (LockMemory's documented bound).
         */
        void granted(SimStore store, StoredLock mine, long floor, boolean memoryFull);

        void violation(String what);
    }

    private final MemoryLockStore memory;
    private final MemoryLockStore.Items items;
    private final World world;
    private final SimProcess process;
    /** The highest token of each lock handed to this incarnation's user: its table's high-water mark is no lower. */
    final java.util.Map<String, Long> highestToken = new java.util.HashMap<>();
    /** When each acquisition's acquire was sent, on this process's clock, by the acquisition's owner. */
    final java.util.Map<String, Long> acquireSentAt = new java.util.HashMap<>();

    SimStore(String tableName, MemoryLockStore.Items items, World world, SimProcess process) {
        this.memory = new MemoryLockStore(tableName, "pk", null, items, LockTableOptions.defaults());
        this.items = items;
        this.world = world;
        this.process = process;
    }

    @Override
    public String tableName() {
        return memory.tableName();
    }

    @Override
    public AcquireAnswer acquire(AcquireRequest request) {
        acquireSentAt.put(request.owner(), process.clock.nanoTime());
        boolean memoryFull = process.table.fenceMarks() >= LockMemory.IDLE_NAMES;
        return write("acquire", () -> {
            AcquireAnswer answer = memory.acquire(request);
            if (answer instanceof Granted granted) {
                world.granted(this, granted.mine(), request.fenceFloor(), memoryFull);
            }
            world.written(request.name());
            return answer;
        });
    }

    @Override
    public @Nullable StoredLock read(String name, Duration timeout) {
        SimFault fault = world.fault(process, "read");
        switch (fault) {
            case FAIL_BEFORE, LANDS_LATER -> throw failed("read failed before it was sent");
            case NON_AWS_AFTER -> throw new IllegalStateException("simulated: a decorator of the client failed");
            default -> {}
        }
        StoredLock item = memory.read(name, timeout);
        if (fault == SimFault.LATE_ANSWER) {
            world.answerLate(process);
        }
        return item;
    }

    @Override
    public RenewAnswer renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
        // step 5: a renewal that falls due after its lease's end, on its own clock, is not sent (the lease expires)
        for (Lease held : SimClocks.liveLeases(process.table)) {
            if (held.owner().equals(lease.owner()) && held.state().endNanos() - process.clock.nanoTime() <= 0) {
                world.violation(process + ": a renewal was sent after its lease's end: " + held);
            }
        }
        return write(
                "renew " + lease.name() + "/" + lease.fencingToken() + " c=" + candidates.size(),
                () -> ownWrite(lease, () -> memory.renew(lease, candidates, newRvn, timeout, now)));
    }

    @Override
    public ReleaseAnswer release(LeaseRef lease, Duration timeout) {
        return write("release", () -> ownWrite(lease, () -> memory.release(lease, timeout)));
    }

    @Override
    public boolean giveBack(String name, String owner, String rvn, Duration timeout) {
        return write("giveBack", () -> {
            StoredLock before = items.get(name);
            boolean given = memory.giveBack(name, owner, rvn, timeout);
            StoredLock after = items.get(name);
            if (!Objects.equals(before, after)
                    && (before == null || !owner.equals(before.owner()) || !rvn.equals(before.rvn()))) {
                world.violation("a give-back of " + owner + "/" + rvn + " changed " + before + " to " + after);
            }
            world.written(name);
            return given;
        });
    }

    @Override
    public TransactWriteItem heldCheck(LeaseRef lease) {
        return memory.heldCheck(lease);
    }

    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> writes, boolean release) {
        memory.transactWrite(lease, writes, release);
    }

    @Override
    public boolean verifyTable() {
        return memory.verifyTable();
    }

    @Override
    public boolean createTableIfMissing() {
        return false;
    }

    /** A renewal or a release: it may change the item only while this acquisition owns it. */
    private <T> T ownWrite(LeaseRef lease, Supplier<T> apply) {
        StoredLock before = items.get(lease.name());
        T answer = apply.get();
        StoredLock after = items.get(lease.name());
        if (!Objects.equals(before, after)
                && (before == null
                        || !lease.owner().equals(before.owner())
                        || before.fence() != lease.fencingToken())) {
            world.violation("a renewal or release of " + lease + " changed another acquisition's item " + before
                    + " to " + after);
        }
        world.written(lease.name());
        return answer;
    }

    private <T> T write(String operation, Supplier<T> apply) {
        SimFault fault = world.fault(process, operation);
        switch (fault) {
            case FAIL_BEFORE -> throw failed(operation + " failed before it was sent");
            case LANDS_LATER -> {
                world.landLater(process, apply::get);
                throw failed(operation + " timed out; it reaches the table later");
            }
            case LOST_AFTER -> {
                apply.get();
                throw failed("the answer of " + operation + " was lost");
            }
            case NON_AWS_AFTER -> {
                apply.get();
                throw new IllegalStateException("simulated: a decorator of the client failed after " + operation);
            }
            case DUPLICATE -> {
                T first = apply.get();
                apply.get(); // the retry: the conditions must make it harmless
                return first; // as DynamoDbLockStore reads a retry's refusal of its own applied write
            }
            case LATE_ANSWER -> {
                T answer = apply.get();
                world.answerLate(process);
                return answer;
            }
            default -> {
                return apply.get();
            }
        }
    }

    private static SdkClientException failed(String what) {
        return SdkClientException.create("simulated: " + what);
    }
}
