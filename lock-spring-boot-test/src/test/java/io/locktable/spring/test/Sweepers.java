package io.locktable.spring.test;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.scheduling.annotation.Scheduled;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Put;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;

/**
 * The main README's fenced write, as the applications of the users' tests in this package send it: in a bean method
 * that catches and goes on, and in the quick start's {@code @Scheduled @LeaderOnly} job.
 */
final class Sweepers {

    private Sweepers() {}

    /** The sweep record the fenced write puts, in the lock table's own table. */
    static TransactWriteItem putSweepRecord(LockTable locks, Lease lease) {
        return TransactWriteItem.builder()
                .put(Put.builder()
                        .tableName(locks.tableName())
                        .item(Map.of(
                                "pk",
                                AttributeValue.fromS("SWEEP#1"),
                                "token",
                                AttributeValue.fromN(Long.toString(lease.fencingToken()))))
                        .build())
                .build();
    }

    /** The README's fenced write in a bean method that catches the failure and goes on, as many applications do. */
    static class Sweeper {
        final AtomicReference<@Nullable SdkException> caught = new AtomicReference<>();
        private final LockTable locks;
        private final DynamoDbClient client;

        Sweeper(LockTable locks, DynamoDbClient client) {
            this.locks = locks;
            this.client = client;
        }

        /** Through the application's client, with {@code lease.heldCheck()}. */
        void sweepOnce() {
            try (Lease lease =
                    locks.tryAcquire("order-sweeper", Duration.ofSeconds(5)).orElseThrow()) {
                client.transactWriteItems(r -> r.transactItems(lease.heldCheck(), putSweepRecord(locks, lease)));
            } catch (SdkException e) {
                caught.set(e);
            }
        }

        /** Through {@code lease.transactWrite}, which the in-memory mode serves. */
        void sweepThroughTheLease() {
            try (Lease lease =
                    locks.tryAcquire("order-sweeper", Duration.ofSeconds(5)).orElseThrow()) {
                lease.transactWrite(putSweepRecord(locks, lease));
            }
        }
    }

    /** The main README's quick start: a {@code @Scheduled @LeaderOnly} job whose write is fenced. */
    static class ScheduledSweeper {
        private final CountDownLatch gate = new CountDownLatch(1);
        private final CountDownLatch sent = new CountDownLatch(1);

        private final LockTable locks;
        private final DynamoDbClient client;

        ScheduledSweeper(LockTable locks, DynamoDbClient client) {
            this.locks = locks;
            this.client = client;
        }

        /** Holds the job before its write until the test opens it (a method: the bean is a proxy). */
        public CountDownLatch gate() {
            return gate;
        }

        /** Opened once the job sent its write. */
        public CountDownLatch sent() {
            return sent;
        }

        @Scheduled(fixedDelay = 100)
        @LeaderOnly("order-sweeper")
        public void sweep() throws InterruptedException {
            gate.await();
            Lease lease = Lease.current().orElseThrow();
            try {
                client.transactWriteItems(r -> r.transactItems(lease.heldCheck(), putSweepRecord(locks, lease)));
            } finally {
                sent.countDown();
            }
        }
    }
}
