package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * An in-memory lock table whose test decides when a lease is lost: the next renewal of a doomed lock answers that
 * another holder has it, and the time of that answer is kept, the moment the holder learns of the loss. Requests for
 * names of a slow prefix hold a worker until the test lets them go, as an engine that hangs would. No engine.
 */
final class LosingStore implements LockStore {

    private final MemoryLockStore table;
    private final Set<String> doomed = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> lostAnsweredNanos = new ConcurrentHashMap<>();
    private final CountDownLatch slowUntil = new CountDownLatch(1);
    private final String slowPrefix;

    LosingStore(String slowPrefix) {
        this.table =
                new MemoryLockStore("Losing", "pk", null, new MemoryLockStore.Items(), LockTableOptions.defaults());
        this.slowPrefix = slowPrefix;
    }

    /** The next renewal of {@code name} answers that the lease is lost. */
    void doom(String name) {
        doomed.add(name);
    }

    /** When the renewal that lost {@code name} was answered, on {@link System#nanoTime()}; null before. */
    @Nullable
    Long lostAnsweredNanos(String name) {
        return lostAnsweredNanos.get(name);
    }

    /** Lets the requests of the slow names go. */
    void releaseSlow() {
        slowUntil.countDown();
    }

    private void slowIf(String name) {
        if (name.startsWith(slowPrefix)) {
            try {
                slowUntil.await(5, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String tableName() {
        return table.tableName();
    }

    @Override
    public AcquireAnswer acquire(AcquireRequest request) {
        slowIf(request.name());
        return table.acquire(request);
    }

    @Override
    public @Nullable StoredLock read(String name, Duration timeout) {
        slowIf(name);
        return table.read(name, timeout);
    }

    @Override
    public RenewAnswer renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now) {
        if (doomed.remove(lease.name())) {
            lostAnsweredNanos.put(lease.name(), System.nanoTime());
            return RenewAnswer.LOST;
        }
        return table.renew(lease, candidates, newRvn, timeout, now);
    }

    @Override
    public ReleaseAnswer release(LeaseRef lease, Duration timeout) {
        return table.release(lease, timeout);
    }

    @Override
    public boolean giveBack(String name, String owner, String rvn, Duration timeout) {
        return table.giveBack(name, owner, rvn, timeout);
    }

    @Override
    public TransactWriteItem heldCheck(LeaseRef lease) {
        return table.heldCheck(lease);
    }

    @Override
    public void transactWrite(LeaseRef lease, List<TransactWriteItem> items, boolean release) {
        table.transactWrite(lease, items, release);
    }

    @Override
    public boolean verifyTable() {
        return table.verifyTable();
    }

    @Override
    public boolean createTableIfMissing() {
        return table.createTableIfMissing();
    }
}
