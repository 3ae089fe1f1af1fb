package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;

/**
 * One acquire attempt at a time: writes at once to a lock it has not seen held, and otherwise reads first and
 * writes only when the lock is free or its holder kept one record version for a whole lease on this process's
 * monotonic clock.
 */
final class Acquirer {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);
    private static final Duration MAX_READ_TIMEOUT = Duration.ofSeconds(10);

    /** A holder this table has seen: its record version, when it was first seen with it, and its lease. */
    private record SeenHolder(String rvn, long sinceNanos, long leaseNanos) {}

    /** The result of one attempt. */
    sealed interface Attempt permits Acquired, Busy {}

    /** The attempt took the lock. */
    record Acquired(Lease lease) implements Attempt {}

    /**
     * The lock is held.
     *
     * @param untilDueNanos how long until the holder would be due for a takeover, or -1 when unknown
     * @param holderLeaseNanos the holder's lease, or -1 when unknown
     */
    record Busy(long untilDueNanos, long holderLeaseNanos) implements Attempt {}

    private final DynamoDbClient client;
    private final LockItems items;
    private final LockClock clock;
    private final Listeners listeners;
    private final FenceHighWater fences;
    private final LeaseKeeper keeper;
    private final String owner;
    private final ConcurrentMap<String, SeenHolder> watched = new ConcurrentHashMap<>();

    Acquirer(
            DynamoDbClient client,
            LockItems items,
            LockClock clock,
            Listeners listeners,
            FenceHighWater fences,
            LeaseKeeper keeper,
            String owner) {
        this.client = client;
        this.items = items;
        this.clock = clock;
        this.listeners = listeners;
        this.fences = fences;
        this.keeper = keeper;
        this.owner = owner;
    }

    Attempt attempt(String name, Duration lease) {
        SeenHolder seen = watched.get(name);
        if (seen == null) {
            return write(name, lease, null);
        }
        StoredLock current = read(name, lease);
        long answered = clock.nanoTime();
        if (current == null || !current.isHeld()) {
            watched.remove(name);
            return write(name, lease, null);
        }
        if (current.rvn().equals(seen.rvn())) {
            long due = seen.sinceNanos() + seen.leaseNanos();
            if (answered - due >= 0) {
                return write(name, lease, seen.rvn());
            }
            return busy(current, due - answered, seen.leaseNanos());
        }
        SeenHolder fresh = remember(name, current, answered);
        return busy(current, fresh.leaseNanos(), fresh.leaseNanos());
    }

    StoredLock read(String name, Duration lease) {
        Duration timeout = lease.compareTo(MAX_READ_TIMEOUT) < 0 ? lease : MAX_READ_TIMEOUT;
        try {
            Map<String, AttributeValue> item =
                    client.getItem(items.read(name, timeout)).item();
            listeners.onRequestSucceeded(name);
            StoredLock stored = StoredLock.parse(name, items.tableName(), item);
            if (stored != null) {
                fences.observed(name, stored.fence());
            }
            return stored;
        } catch (RuntimeException e) {
            if (!(e instanceof LockItemConflictException)) {
                listeners.onRequestFailed(name, e);
            }
            throw e;
        }
    }

    private Attempt write(String name, Duration lease, String seenRvn) {
        String rvn = RecordVersions.next();
        Instant wall = clock.instant();
        long sent = clock.nanoTime();
        try {
            UpdateItemResponse response = client.updateItem(
                    seenRvn == null
                            ? items.acquireFree(name, owner, rvn, lease, wall)
                            : items.takeOver(name, seenRvn, owner, rvn, lease, wall));
            listeners.onRequestSucceeded(name);
            StoredLock mine = StoredLock.parse(name, items.tableName(), response.attributes());
            watched.remove(name);
            fences.granted(name, mine.fence());
            boolean tookOver = seenRvn != null;
            Lease acquired = new Lease(keeper, name, owner, mine.fence(), rvn, lease, sent, wall, tookOver);
            keeper.start(acquired, sent);
            if (tookOver) {
                log.info("Took over lock '{}' in table '{}' (fencing token {})", name, items.tableName(), mine.fence());
            }
            listeners.onAcquired(acquired, tookOver);
            return new Acquired(acquired);
        } catch (ConditionalCheckFailedException e) {
            listeners.onRequestSucceeded(name);
            StoredLock holder = e.hasItem() && !e.item().isEmpty()
                    ? StoredLock.parse(name, items.tableName(), e.item())
                    : read(name, lease);
            // step 3: a record version is dated no earlier than the answer that showed it; dated before a read
            // that took long, a renewal it shows would look older than it is, and a takeover come too soon
            long answered = clock.nanoTime();
            if (holder == null || !holder.isHeld()) {
                return new Busy(-1, -1);
            }
            if (e.hasItem()) {
                fences.observed(name, holder.fence());
            }
            SeenHolder known = remember(name, holder, answered);
            long due = known.sinceNanos() + known.leaseNanos() - answered;
            return busy(holder, Math.max(0, due), known.leaseNanos());
        } catch (SdkClientException | DynamoDbException e) {
            listeners.onRequestFailed(name, e);
            if (mayHaveBeenApplied(e)) {
                clock.execute(() -> abandon(name, rvn, lease));
            }
            throw e;
        }
    }

    /** Keeps the first time a record version was seen: a holder's clock starts at its first sight. */
    private SeenHolder remember(String name, StoredLock holder, long answeredNanos) {
        long leaseNanos = Duration.ofMillis(holder.leaseMs()).toNanos();
        return watched.compute(
                name,
                (key, previous) -> previous != null && previous.rvn().equals(holder.rvn())
                        ? previous
                        : new SeenHolder(holder.rvn(), answeredNanos, leaseNanos));
    }

    private Busy busy(StoredLock holder, long untilDueNanos, long holderLeaseNanos) {
        listeners.onBusy(holder.name(), holder.toRecord());
        return new Busy(untilDueNanos, holderLeaseNanos);
    }

    private static boolean mayHaveBeenApplied(RuntimeException e) {
        return e instanceof SdkClientException || (e instanceof DynamoDbException d && d.statusCode() >= 500);
    }

    /** An acquire whose answer never came may have been applied: give it back if so. */
    private void abandon(String name, String rvn, Duration lease) {
        try {
            client.updateItem(items.abandon(name, owner, rvn, lease));
            log.info("Gave back lock '{}' whose acquire was applied but not answered", name);
        } catch (ConditionalCheckFailedException e) {
            log.debug("Unanswered acquire of lock '{}' was not applied", name);
        } catch (RuntimeException e) {
            log.debug("Could not give back the unanswered acquire of lock '{}': {}", name, e.toString());
        }
    }
}
