package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.dynamodb.model.TableDescription;
import software.amazon.awssdk.services.dynamodb.model.TimeToLiveDescription;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * Every request of the lock protocol, each answered as an outcome the protocol decides on. The one seam between the
 * decisions ({@link Acquirer}, {@link LeaseKeeper}, {@link TableVerifier}) and DynamoDB ({@link DynamoDbLockStore});
 * tests put a scripted store behind it to drive the decisions in virtual time.
 *
 * <p>A request that fails throws the SDK's exception after the client's retries; {@link Errors#mayHaveApplied} tells
 * whether a write that threw may have been applied all the same.
 */
interface LockStore {

    /** What an acquire write came to. */
    sealed interface AcquireAnswer permits Granted, Refused {}

    /**
     * The write was applied: the lock is this acquisition's.
     *
     * @param mine the item as written
     * @param onRetry true when an earlier attempt of the SDK applied it and the retry's condition failure showed it
     */
    record Granted(StoredLock mine, boolean onRetry) implements AcquireAnswer {}

    /**
     * The write's condition failed: the lock is held, or moved on since it was seen.
     *
     * @param current the item as the failure showed it (returned with the failure, or read after it), or null if
     *     there is no item any more
     */
    record Refused(@Nullable StoredLock current) implements AcquireAnswer {}

    /** What a renewal came to. */
    enum RenewAnswer {
        /** The new record version was written (by this attempt or an earlier one of the SDK's retries). */
        RENEWED,
        /** Another holder has the lock, or nobody: the lease is lost. */
        LOST
    }

    /** What a release came to. */
    enum ReleaseAnswer {
        /** The owner was removed, by this attempt or an earlier one of the SDK's retries. */
        RELEASED,
        /** Nothing changed: another acquisition holds or held the lock since. */
        NOT_OURS
    }

    /** The name of the table. */
    String tableName();

    /**
     * Step 2 (free lock) or step 4 (takeover): one conditional write that raises the fence.
     *
     * @param seenRvn null to take a lock without owner, or the holder's record version watched for a whole lease
     * @param owner the owner of this one acquisition: no other acquisition, of any table, ever writes it
     * @param fenceFloor the highest fence this table knows for the lock: an item without a fence starts above it
     */
    AcquireAnswer acquire(
            String name,
            @Nullable String seenRvn,
            String owner,
            String rvn,
            Duration lease,
            Instant now,
            long fenceFloor,
            Duration timeout);

    /** A strongly consistent read of the lock item; null when there is none. */
    @Nullable
    StoredLock read(String name, Duration timeout);

    /** Step 5: a new record version, if this lease still holds the item at one of {@code candidates}. */
    RenewAnswer renew(LeaseRef lease, List<String> candidates, String newRvn, Duration timeout, Instant now);

    /** Step 6: removes the owner if this acquisition still holds the item; sent even on an interrupted thread. */
    ReleaseAnswer release(LeaseRef lease, Duration timeout);

    /**
     * Gives back an acquire whose answer never came, if it was applied; sent even on an interrupted thread.
     *
     * @return true if it had been applied and is now given back, false if it had not been applied
     */
    boolean giveBack(String name, String owner, String rvn, Duration timeout);

    /** Step 7: the held check of a lease, for a {@code TransactWriteItems}. */
    TransactWriteItem heldCheck(LeaseRef lease);

    /** Step 7: sends the held check and the items in one transaction. */
    void transactWrite(LeaseRef lease, List<TransactWriteItem> items);

    /** {@code DescribeTable}, for {@link TableVerifier}. */
    TableDescription describe();

    /**
     * Creates the table with the lock table's keys, as strings, on demand capacity, unless it exists, and waits until
     * it is active; for {@link TableVerifier}.
     *
     * @return true if this call created it, false if it existed or another process was creating it
     */
    boolean createTable();

    /** Enables the table's time to live on the attribute; for {@link TableVerifier}. */
    void enableTimeToLive(String attribute);

    /**
     * {@code DescribeTimeToLive}, for {@link TableVerifier}.
     *
     * @return the table's time to live, or null when the engine does not tell
     */
    @Nullable
    TimeToLiveDescription describeTimeToLive();

    /**
     * Tells whether a fenced transaction was cancelled by its held check, the first of its items: the lease is lost.
     * Any other cancellation (the other items' conditions, a conflict, throttling) leaves the lease as it was.
     */
    static boolean heldCheckFailed(TransactionCanceledException e) {
        if (!e.hasCancellationReasons() || e.cancellationReasons().isEmpty()) {
            return false;
        }
        return "ConditionalCheckFailed".equals(e.cancellationReasons().get(0).code());
    }
}
