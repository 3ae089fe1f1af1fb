package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.CancellationReason;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Keeps the leases of one table: renews each every third of its duration on the clock's scheduler, ends it when
 * a renewal shows it lost or none succeeded within its duration, and releases it.
 */
final class LeaseKeeper {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);
    /** Unanswered renewals after which a read settles which of them, if any, was applied. */
    static final int MAX_UNANSWERED = 16;

    private static final long MIN_RETRY_NANOS = Duration.ofMillis(50).toNanos();
    private static final long MAX_RETRY_NANOS = Duration.ofSeconds(1).toNanos();
    private static final long MAX_EXPIRY_GUARD_NANOS = Duration.ofMillis(100).toNanos();
    private static final Duration MAX_RELEASE_TIMEOUT = Duration.ofSeconds(5);

    private final DynamoDbClient client;
    private final LockItems items;
    private final LockClock clock;
    private final Listeners listeners;
    private final Set<Lease> held = ConcurrentHashMap.newKeySet();

    LeaseKeeper(DynamoDbClient client, LockItems items, LockClock clock, Listeners listeners) {
        this.client = client;
        this.items = items;
        this.clock = clock;
        this.listeners = listeners;
    }

    long nanoTime() {
        return clock.nanoTime();
    }

    Collection<Lease> held() {
        List<Lease> live = new ArrayList<>(held.size());
        for (Lease lease : held) {
            if (lease.isHeld()) {
                live.add(lease);
            }
        }
        return live;
    }

    /** Starts keeping a lease just acquired; one that ended already (a late answer) is given back at once. */
    void start(Lease lease, long sentNanos) {
        held.add(lease);
        if (!lease.isHeld()) {
            log.warn(
                    "Acquire of lock '{}' in table '{}' was answered after its whole lease of {}: it has ended"
                            + " already and is given back",
                    lease.name(),
                    items.tableName(),
                    lease.duration());
            return;
        }
        scheduleRenewal(lease, sentNanos + lease.durationNanos() / 3 - clock.nanoTime());
        watch(lease);
    }

    private void scheduleRenewal(Lease lease, long delayNanos) {
        lease.renewalScheduled(clock.schedule(() -> clock.execute(() -> renew(lease)), delayNanos));
    }

    /**
     * Wakes at the lease's end, a guard early so a late scheduler thread still ends it in time; ends it unless a
     * renewal moved the end on, then sleeps until the new end.
     */
    private void watch(Lease lease) {
        if (!lease.isLive()) {
            return;
        }
        long guard = Math.min(lease.durationNanos() / 20, MAX_EXPIRY_GUARD_NANOS);
        long left = lease.endNanos() - guard - clock.nanoTime();
        if (left <= 0) {
            expire(lease);
        } else {
            lease.expiryScheduled(clock.schedule(() -> watch(lease), left));
        }
    }

    private void renew(Lease lease) {
        if (!lease.isLive()) {
            return;
        }
        long sent = clock.nanoTime();
        long left = lease.endNanos() - sent;
        if (left <= 0) {
            expire(lease);
            return;
        }
        if (lease.unansweredCount() >= MAX_UNANSWERED) {
            settle(lease, left);
            return;
        }
        String version = RecordVersions.next();
        Instant wall = clock.instant();
        List<String> candidates = lease.startRenewal(version, sent);
        try {
            client.updateItem(
                    items.renew(lease, candidates, version, LockItems.renewalTimeout(Duration.ofNanos(left)), wall));
            listeners.onRequestSucceeded(lease.name());
            if (lease.renewed(version, wall)) {
                log.debug("Renewed lock '{}' (fencing token {})", lease.name(), lease.fencingToken());
                listeners.onRenewed(lease);
                scheduleRenewal(lease, sent + lease.durationNanos() / 3 - clock.nanoTime());
            }
        } catch (ConditionalCheckFailedException e) {
            listeners.onRequestSucceeded(lease.name());
            lose(lease, "a renewal found another holder or no owner");
        } catch (ResourceNotFoundException e) {
            listeners.onRequestFailed(lease.name(), e);
            lose(lease, "the table does not exist any more");
        } catch (RuntimeException e) {
            renewalFailed(lease, e);
        }
    }

    /** Too many renewals went unanswered: one read tells which, if any, was applied. */
    private void settle(Lease lease, long left) {
        try {
            StoredLock stored = StoredLock.parse(
                    lease.name(),
                    items.tableName(),
                    client.getItem(items.read(lease.name(), LockItems.renewalTimeout(Duration.ofNanos(left))))
                            .item());
            listeners.onRequestSucceeded(lease.name());
            if (stored == null || !lease.owner().equals(stored.owner()) || stored.fence() != lease.fencingToken()) {
                lose(lease, "a read found another holder or no owner");
            } else if (stored.rvn().equals(lease.recordVersion())) {
                lease.forgetUnanswered();
                renew(lease);
            } else if (lease.isUnanswered(stored.rvn()) && lease.renewed(stored.rvn(), clock.instant())) {
                listeners.onRenewed(lease);
                scheduleRenewal(lease, lease.durationNanos() / 3);
            } else {
                lose(lease, "a read found a record version this lease did not write");
            }
        } catch (RuntimeException e) {
            renewalFailed(lease, e);
        }
    }

    private void renewalFailed(Lease lease, RuntimeException error) {
        listeners.onRequestFailed(lease.name(), error);
        if (!lease.isLive()) {
            return;
        }
        long left = lease.endNanos() - clock.nanoTime();
        log.debug(
                "Renewal of lock '{}' failed, {} ms of its lease left: {}",
                lease.name(),
                left / 1_000_000,
                error.toString());
        listeners.onRenewalFailed(lease, error);
        long delay = Math.min(MAX_RETRY_NANOS, Math.max(MIN_RETRY_NANOS, left / 5));
        delay = delay / 2 + ThreadLocalRandom.current().nextLong(delay / 2 + 1);
        scheduleRenewal(lease, delay);
    }

    void expire(Lease lease) {
        if (lease.finish(LeaseEnd.EXPIRED)) {
            held.remove(lease);
            log.warn(
                    "Lease of lock '{}' in table '{}' (fencing token {}) ran out: no renewal succeeded within {}",
                    lease.name(),
                    items.tableName(),
                    lease.fencingToken(),
                    lease.duration());
            listeners.onLost(lease, LeaseEnd.EXPIRED);
            clock.execute(() -> sendRelease(lease));
        }
    }

    private void lose(Lease lease, String why) {
        if (lease.finish(LeaseEnd.LOST)) {
            held.remove(lease);
            log.warn(
                    "Lease of lock '{}' in table '{}' (fencing token {}) was lost: {}",
                    lease.name(),
                    items.tableName(),
                    lease.fencingToken(),
                    why);
            listeners.onLost(lease, LeaseEnd.LOST);
        }
    }

    /** Ends the lease locally first, then removes its owner with a write conditional on owner and fence. */
    void release(Lease lease, LeaseEnd reason) {
        boolean wasHeld = lease.isLive();
        if (!lease.finish(reason)) {
            return;
        }
        held.remove(lease);
        listeners.onReleased(lease);
        if (wasHeld) {
            sendRelease(lease);
        }
    }

    private void sendRelease(Lease lease) {
        Duration timeout = lease.duration().compareTo(MAX_RELEASE_TIMEOUT) < 0 ? lease.duration() : MAX_RELEASE_TIMEOUT;
        try {
            client.updateItem(items.release(lease, timeout));
            listeners.onRequestSucceeded(lease.name());
            log.debug("Released lock '{}' (fencing token {})", lease.name(), lease.fencingToken());
        } catch (ConditionalCheckFailedException e) {
            listeners.onRequestSucceeded(lease.name());
            log.debug("Release of lock '{}' changed nothing: another holder has it", lease.name());
        } catch (RuntimeException e) {
            listeners.onRequestFailed(lease.name(), e);
            log.warn(
                    "Release of lock '{}' in table '{}' failed; it frees itself after its lease of {}: {}",
                    lease.name(),
                    items.tableName(),
                    lease.duration(),
                    e.toString());
        }
    }

    TransactWriteItem heldCheck(Lease lease) {
        return items.heldCheck(lease);
    }

    void transactWrite(Lease lease, List<TransactWriteItem> writes) {
        if (!lease.isHeld()) {
            throw new LeaseLostException(
                    lease.name(),
                    lease.fencingToken(),
                    "it ended (" + lease.end().orElse(LeaseEnd.EXPIRED) + ")",
                    null);
        }
        List<TransactWriteItem> all = new ArrayList<>(writes.size() + 1);
        all.add(heldCheck(lease));
        all.addAll(writes);
        try {
            client.transactWriteItems(
                    TransactWriteItemsRequest.builder().transactItems(all).build());
        } catch (TransactionCanceledException e) {
            if (heldCheckFailed(e)) {
                lose(lease, "a fenced transaction's check failed");
                throw new LeaseLostException(
                        lease.name(), lease.fencingToken(), "the transaction's held check failed", e);
            }
            throw e;
        }
    }

    static boolean heldCheckFailed(TransactionCanceledException e) {
        if (!e.hasCancellationReasons() || e.cancellationReasons().isEmpty()) {
            return false;
        }
        CancellationReason first = e.cancellationReasons().get(0);
        return "ConditionalCheckFailed".equals(first.code());
    }

    /** Releases every lease, for {@link LockTable#close()}. */
    void releaseAll() {
        for (Lease lease : List.copyOf(held)) {
            release(lease, LeaseEnd.CLOSED);
        }
    }
}
