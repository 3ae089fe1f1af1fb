package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
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
 * Every request of the lock protocol, answered as an outcome the protocol decides on: the one seam between the
 * decisions ({@link Acquirer}, {@link LeaseKeeper}) and the items ({@link DynamoDbLockStore}, or {@link
 * MemoryLockStore} for {@link LockTable#inMemory}). The store sees records of this package, never the public {@link
 * Lease}. A failed request throws the SDK's exception after the client's retries; the static methods at the end are
 * the one rule for reading it.
 */
interface LockStore {

    /** What the store needs of a held lease: the lock, the acquisition's identity (owner and fence), its lease. */
    record LeaseRef(String name, String owner, long fencingToken, Duration duration) {}

    /**
     * One acquire write (step 2, or step 4 when {@code seenRvn} is set), built once by {@link Acquirer} for whichever
     * store serves it.
     *
     * @param seenRvn null to take a lock without owner, or the holder's record version watched for a whole lease
     * @param owner the owner of this one acquisition: no other acquisition, of any table, ever writes it
     * @param rvn the record version the write sets
     * @param lease the lease it takes
     * @param now the wall-clock time of the write, for the item's time to live only: never a lease decision
     * @param fenceFloor the highest fence this table knows for the lock: an item without a fence starts above it
     * @param timeout how long the request may take
     */
    record AcquireRequest(
            String name,
            @Nullable String seenRvn,
            String owner,
            String rvn,
            Duration lease,
            Instant now,
            long fenceFloor,
            Duration timeout) {}

    /**
     * A lock item as a store answers it.
     *
     * @param owner the owner, or null when the lock is free
     * @param holder the readable holder, or null
     * @param rvn the record version, or null on a free item that never had one
     * @param fence the fencing token, 0 when never acquired
     * @param leaseMs the lease of the last holder in milliseconds, 0 when unknown
     */
    record StoredLock(
            String name,
            @Nullable String owner,
            @Nullable String holder,
            @Nullable String rvn,
            long fence,
            long leaseMs) {

        boolean isHeld() {
            return owner != null;
        }

        LockRecord toRecord() {
            return new LockRecord(
                    name,
                    Optional.ofNullable(owner),
                    Optional.ofNullable(holder),
                    fence,
                    rvn == null ? "" : rvn,
                    Duration.ofMillis(leaseMs));
        }
    }

    /** What an acquire write came to. */
    sealed interface AcquireAnswer permits Granted, Refused {}

    /**
     * The write was applied.
     *
     * @param onRetry true when an earlier attempt of the SDK applied it and the retry's condition failure showed it
     */
    record Granted(StoredLock mine, boolean onRetry) implements AcquireAnswer {}

    /** The write's condition failed; {@code current} is the item the failure showed (or read), null if none. */
    record Refused(@Nullable StoredLock current) implements AcquireAnswer {}

    enum RenewAnswer {
        /** The new record version was written (by this attempt or an earlier one of the SDK's retries). */
        RENEWED,
        /** Another holder has the lock, or nobody: the lease is lost. */
        LOST
    }

    enum ReleaseAnswer {
        /** The owner was removed, by this attempt or an earlier one of the SDK's retries. */
        RELEASED,
        /** Nothing changed: another acquisition holds or held the lock since. */
        NOT_OURS
    }

    String tableName();

    /** Step 2 (free lock) or step 4 (takeover): one conditional write that raises the fence. */
    AcquireAnswer acquire(AcquireRequest request);

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
     * @return true if it had been applied and is now given back
     */
    boolean giveBack(String name, String owner, String rvn, Duration timeout);

    /** Step 7: the held check of a lease, for a {@code TransactWriteItems}. */
    TransactWriteItem heldCheck(LeaseRef lease);

    /**
     * Step 7: sends the held check and the items in one transaction, the check first; with {@code release}, the check
     * is the release itself (step 6's update of the lock item, on the same condition), so the items and the release
     * apply together or not at all.
     */
    void transactWrite(LeaseRef lease, List<TransactWriteItem> items, boolean release);

    /**
     * Step 9, for {@link LockTable#verify()}.
     *
     * @return true for a global table with multi-Region strong consistency (no transactions, no time to live)
     * @throws IllegalStateException naming the table and every problem found
     */
    boolean verifyTable();

    /** For {@link LockTable#createTableIfMissing()}: true if this call created the table. */
    boolean createTableIfMissing();

    // ---- the one rule for reading a failed request

    /**
     * Whether a write that threw may have been applied all the same. Only a refusal of DynamoDB itself (a 4xx) proves
     * it was not; anything else may have come after the engine applied it: a lost answer, a 5xx, or an exception of
     * something between the SDK and the caller (a decorator of the client, an interceptor, an {@link Error}).
     */
    static boolean mayHaveApplied(Throwable error) {
        return !(error instanceof AwsServiceException service
                && service.statusCode() >= 400
                && service.statusCode() < 500);
    }

    /**
     * Whether a write that threw may still reach the table and be applied later: the client gave up before any
     * answer. An answer of DynamoDB itself, even a 5xx, means the table has served it.
     */
    static boolean mayLandLater(Throwable error) {
        return !(error instanceof AwsServiceException);
    }

    /** An error that may pass: throttling, a 5xx, a transaction conflict, or a client-side failure (I/O, timeout). */
    static boolean isTransient(Throwable error) {
        if (error instanceof ResourceNotFoundException) {
            return false;
        }
        if (error instanceof TransactionConflictException || error instanceof ReplicatedWriteConflictException) {
            // the latter: another region's write of a strongly consistent global table came first; this one was
            // rejected, not applied
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

    /** Whether a fenced transaction was cancelled by its held check, the first item: the lease is lost. */
    static boolean heldCheckFailed(TransactionCanceledException e) {
        if (!e.hasCancellationReasons() || e.cancellationReasons().isEmpty()) {
            return false;
        }
        return "ConditionalCheckFailed".equals(e.cancellationReasons().get(0).code());
    }
}
