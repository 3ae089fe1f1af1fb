package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ReplicatedWriteConflictException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;

/**
 * Every request of the lock protocol, each answered as an outcome the protocol decides on. The one seam between the
 * decisions ({@link Acquirer}, {@link LeaseKeeper}) and DynamoDB ({@link DynamoDbLockStore}); {@link MemoryLockStore}
 * keeps the items in memory for {@link LockTable#inMemory}, and tests put a scripted store behind it to drive the
 * decisions in virtual time. The store sees records of this package ({@link LeaseRef}, {@link StoredLock}), never the
 * public {@link Lease}.
 *
 * <p>A request that fails throws the SDK's exception after the client's retries; the static methods at the end are
 * the one rule for reading such a failure: whether the write {@link #mayHaveApplied may have been applied}, whether it
 * {@link #isTransient may pass}, and whether a transaction {@link #heldCheckFailed lost the lease}.
 */
interface LockStore {

    /**
     * What the store needs of a held lease, and no more: the lock, the acquisition's identity (its owner and fence,
     * which a release, a renewal and a held check compare) and its duration.
     *
     * @param name the lock
     * @param owner the owner this one acquisition wrote
     * @param fencingToken the fence it was granted
     * @param duration its lease
     */
    record LeaseRef(String name, String owner, long fencingToken, Duration duration) {}

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

    /**
     * Step 9, for {@link LockTable#verify()}: checks that the table can hold these locks.
     *
     * @return true when it is a global table with multi-Region strong consistency: safe for locks from every
     *     region, but without transactions (so without fenced writes) and without time to live
     * @throws IllegalStateException naming the table and every problem found
     */
    boolean verifyTable();

    /**
     * For {@link LockTable#createTableIfMissing()}: creates the table unless it exists, with its time to live if the
     * lock items carry one, and waits until it is active.
     *
     * @return true if this call created it, false if it existed or another process was creating it
     */
    boolean createTableIfMissing();

    // ---- the one rule for reading a failed request

    /**
     * Tells whether a write that threw may have been applied all the same. Only a refusal of DynamoDB itself (a 4xx
     * service exception: a failed condition, throttling, validation) proves it was not; anything else may have come
     * after the engine applied it: a lost answer (I/O, a timeout), a 5xx, or an exception of something between the
     * SDK and the caller (a tracing or metrics decorator of the client, an interceptor, an {@link Error}).
     */
    static boolean mayHaveApplied(Throwable error) {
        return !(error instanceof AwsServiceException service
                && service.statusCode() >= 400
                && service.statusCode() < 500);
    }

    /**
     * Tells whether a write that threw may still reach the table and be applied later: the client gave up before any
     * answer (I/O, a timeout, an interrupt, something between the SDK and the caller), so the request may still be on
     * its way. An answer of DynamoDB itself, even a 5xx, means the table has served it.
     */
    static boolean mayLandLater(Throwable error) {
        return !(error instanceof AwsServiceException);
    }

    /**
     * An error that may pass: throttling, a 5xx, a transaction conflict, or a client-side failure such as I/O, a
     * timeout or credentials that could not be loaded.
     */
    static boolean isTransient(Throwable error) {
        if (error instanceof ResourceNotFoundException) {
            return false;
        }
        if (error instanceof TransactionConflictException || error instanceof ReplicatedWriteConflictException) {
            // the latter: a write from another region of a multi-Region strongly consistent table came first; this
            // write was rejected, not applied, and may be sent again
            return true;
        }
        if (error instanceof DynamoDbException dynamo) {
            return dynamo.isThrottlingException() || dynamo.statusCode() >= 500 || dynamo.retryable();
        }
        if (error instanceof SdkClientException) {
            return true;
        }
        return error instanceof SdkException sdk && sdk.retryable();
    }

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
