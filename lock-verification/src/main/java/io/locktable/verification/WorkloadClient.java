package io.locktable.verification;

import io.locktable.Lease;
import io.locktable.LeaseLostException;
import io.locktable.LockTable;
import java.util.Random;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;

/**
 * One client of the workload: acquire the lock, read the set, add a unique element, write the set back, release; now
 * and then it stands still between its read and its write for longer than the lease, as a process in a long garbage
 * collection does, while its network lets nothing through.
 */
final class WorkloadClient implements Runnable {

    static final String LOCK = "jepsen-set";

    private final int id;
    private final LockTable locks;
    private final DynamoDbClient client;
    private final ClientNetwork network;
    private final PauseInsideWrite pauseInsideWrite;
    private final SetItem set;
    private final WorkloadSettings settings;
    private final History history;
    private final AtomicBoolean somebodyPaused;
    private final AtomicInteger pauses;
    private final Random random;
    private final long deadlineNanos;
    private long count;

    WorkloadClient(
            int id,
            LockTable locks,
            DynamoDbClient client,
            ClientNetwork network,
            PauseInsideWrite pauseInsideWrite,
            SetItem set,
            WorkloadSettings settings,
            History history,
            AtomicBoolean somebodyPaused,
            AtomicInteger pauses,
            long deadlineNanos) {
        this.id = id;
        this.locks = locks;
        this.client = client;
        this.network = network;
        this.pauseInsideWrite = pauseInsideWrite;
        this.set = set;
        this.settings = settings;
        this.history = history;
        this.somebodyPaused = somebodyPaused;
        this.pauses = pauses;
        this.random = new Random(settings.seed() * 31 + id);
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void run() {
        while (System.nanoTime() - deadlineNanos < 0 && !Thread.currentThread().isInterrupted()) {
            Lease lease;
            try {
                lease = locks.acquire(LOCK, settings.lease(), settings.lease().multipliedBy(10));
            } catch (TimeoutException | SdkException e) {
                continue; // no lease, no operation
            } catch (InterruptedException e) {
                return;
            }
            try {
                addOne(lease);
            } catch (InterruptedException e) {
                return;
            } finally {
                try {
                    lease.release();
                } catch (RuntimeException e) {
                    // a release that failed leaves the lease to expire; the lock protocol's business, not the set's
                }
            }
        }
    }

    private void addOne(Lease lease) throws InterruptedException {
        long element = id * 1_000_000L + ++count;
        long token = lease.fencingToken();
        record(Op.Type.INVOKE, element, token, "");
        boolean writeSent = false;
        try {
            SetItem.Snapshot seen =
                    settings.variant() == Variant.FENCING_TOKEN ? set.fencedRead(client, token) : set.read(client);
            maybePause();
            SetItem.Snapshot next = seen.with(element, token);
            writeSent = true;
            switch (settings.variant()) {
                case UNFENCED -> set.writeUnfenced(client, next, token);
                case FENCING_TOKEN -> set.writeWithToken(client, next, token);
                case HELD_CHECK -> set.writeWithHeldCheck(lease, next);
            }
            record(Op.Type.OK, element, token, "");
        } catch (ConditionalCheckFailedException | LeaseLostException | TransactionCanceledException e) {
            record(Op.Type.FAIL, element, token, e.getClass().getSimpleName());
        } catch (SdkException e) {
            // a read that failed wrote nothing; a write that failed may have been applied
            record(
                    writeSent ? Op.Type.INFO : Op.Type.FAIL,
                    element,
                    token,
                    e.getClass().getSimpleName());
        }
    }

    /**
     * Now and then the process stands still for longer than the lease, while its network lets nothing through: half
     * the time before the write is called (the library's own check of the lease then refuses a fenced write), half the
     * time inside the write, after that check, just before the request leaves (only the table's condition can refuse
     * it then).
     */
    private void maybePause() throws InterruptedException {
        if (random.nextDouble() >= settings.pauseChance() || !somebodyPaused.compareAndSet(false, true)) {
            return;
        }
        pauses.incrementAndGet();
        if (random.nextBoolean()) {
            pauseInsideWrite.arm(() -> {
                try {
                    pause();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            return;
        }
        pause();
    }

    private void pause() throws InterruptedException {
        network.pause();
        try {
            Thread.sleep(settings.pause().toMillis());
        } finally {
            network.resume();
            somebodyPaused.set(false);
        }
    }

    private void record(Op.Type type, long element, long token, String note) {
        history.add(new Op(id, type, element, token, System.nanoTime(), note));
    }
}
