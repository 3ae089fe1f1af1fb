package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.EngineCapability;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * The lease rules at their exact boundaries, with each process on a {@link ManualLockClock} of its own: time moves
 * only when the test moves it, so one nanosecond before and after a boundary can be asked about, and the clocks'
 * origins are far apart (one next to {@code Long.MAX_VALUE}, so its values wrap), as two machines' monotonic clocks
 * have nothing in common. The requests still go to the real engine: these cases check what is sent, and answers lost,
 * late or failed. The rules that depend only on what the table answers are in {@link LeaseBoundaryTest}, in memory.
 */
@DynamoDbEngineTest
class VirtualTimeTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration NANO = Duration.ofNanos(1);

    private final DynamoDbEngine engine;

    @AutoClose
    private final Contenders contenders;

    private final ManualLockClock holderClock =
            new ManualLockClock(Long.MAX_VALUE - Duration.ofSeconds(10).toNanos());
    private final ManualLockClock contenderClock = new ManualLockClock(-42);
    private final String name = Contenders.lockName();

    VirtualTimeTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.contenders = new Contenders(engine, table);
    }

    /**
     * A record version is dated no earlier than the answer that showed it. Here the contender's write fails on the
     * held lock without the item (as on engines that do not return it), and its read takes a third of a lease, during
     * which the holder renews. Dating the version at the failed write, before the read, would let the contender take
     * over a third of a lease before the holder (then cut off from the table) stops believing it holds the lock.
     */
    @Test
    void aRecordVersionSeenByASlowReadIsDatedAtTheReadsAnswerSoTheHolderStopsBelievingFirst() {
        Contenders.Contender holder =
                contenders.add(b -> b.clock(holderClock), o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        Contenders.Contender contender = contenders.add(b -> b.clock(contenderClock));
        Lease held = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        Duration third = LEASE.dividedBy(3);
        contender
                .faults()
                .withoutItemOnConditionFailure()
                .beforeSend(
                        "GetItem",
                        () -> {
                            holderClock.advance(third); // the holder renews while the read is on its way
                            contenderClock.advance(third);
                        },
                        1);

        assertThat(contender.locks().tryAcquire(name, LEASE)).isEmpty();
        assertThat(held.renewedAt()).isAfter(held.acquiredAt());
        holder.faults().blackhole("UpdateItem").blackhole("GetItem"); // the holder is cut off from the table
        holderClock.advance(LEASE.minus(third).plus(NANO));
        contenderClock.advance(LEASE.minus(third).plus(NANO));

        // a whole lease after the failed write, but not after the read that showed the renewed version
        assertThat(held.isHeld())
                .as("the holder believes until its renewal's send plus a lease")
                .isTrue();
        assertThat(contender.locks().tryAcquire(name, LEASE))
                .as("no takeover while the holder still believes")
                .isEmpty();

        holderClock.advance(third);
        contenderClock.advance(third);
        assertThat(held.isHeld()).isFalse();
        assertThat(contender.locks().tryAcquire(name, LEASE))
                .hasValueSatisfying(lease -> assertThat(lease.fencingToken()).isEqualTo(held.fencingToken() + 1));
    }

    @Test
    void aWaitingContenderReadsEveryThirdOfTheLeaseAtMostTenSecondsAndTakesOverAtTheDueTimeNotAPollLater()
            throws Exception {
        Contenders.Contender holder = contenders.add(b -> b.clock(holderClock));
        Contenders.Contender contender = contenders.add(b -> b.clock(contenderClock));
        Lease held = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        long start = contenderClock.nanoTime();

        // the holder is paused; the contender waits in acquire on a thread of its own while the test moves its
        // clock a second at a time, each time once the contender sleeps again
        CompletableFuture<Lease> taken = CompletableFuture.supplyAsync(() -> {
            try {
                return contender.locks().acquire(name, LEASE.multipliedBy(3));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Duration step = Duration.ofSeconds(1);
        while (!taken.isDone()) {
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(2))
                    .until(() -> contenderClock.sleepersWaiting() || taken.isDone());
            if (!taken.isDone()) {
                contenderClock.advance(step);
            }
        }
        Duration waited = Duration.ofNanos(contenderClock.nanoTime() - start);

        assertThat(taken.get().fencingToken()).isEqualTo(held.fencingToken() + 1);
        assertThat(waited).as("a whole lease, and not a poll more").isBetween(LEASE, LEASE.plus(step));
        // its first write failed on the held lock and saw the holder in the failure's item, or read it where the
        // engine returns no item; then a read at about 10 s and 20 s (a third of the lease, plus up to 10 % jitter),
        // the last sleep cut short at the due time, and at 30 s the read that finds the same record version and
        // the takeover's write
        List<String> firstAttempt = engine.supports(EngineCapability.RETURNS_ITEM_ON_CONDITION_FAILURE)
                ? List.of("UpdateItem")
                : List.of("UpdateItem", "GetItem");
        List<String> expected = new ArrayList<>(firstAttempt);
        expected.addAll(List.of("GetItem", "GetItem", "GetItem", "UpdateItem"));
        assertThat(contender.requests().operations()).containsExactlyElementsOf(expected);
    }

    @Test
    void anAcquireWhoseAnswerNeverCameIsGivenBackWithBackOffUntilItWorks() {
        Contenders.Contender contender =
                contenders.add(b -> b.clock(contenderClock), o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        contender.faults().loseReply("UpdateItem", 1).failBeforeSendIf("UpdateItem", VirtualTimeTest::isGiveBack, 3);

        assertThatThrownBy(() -> contender.locks().tryAcquire(name, LEASE)).isInstanceOf(SdkClientException.class);
        assertThat(contenders.item(name)).containsKey("owner"); // applied, and the first give-back failed
        contenderClock.advance(Duration.ofMillis(100 + 200 + 400));

        assertThat(contenders.item(name)).doesNotContainKey("owner");
        assertThat(contender.faults().injected()).isEqualTo(1 + 3);
        assertThat(contenderClock.pending()).isZero();
    }

    @Test
    void aGiveBackThatNeverGetsThroughStopsWhenTheLeaseItMayHaveTakenHasRunOut() {
        Contenders.Contender contender =
                contenders.add(b -> b.clock(contenderClock), o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        contender
                .faults()
                .loseReply("UpdateItem", 1)
                .failBeforeSendIf("UpdateItem", VirtualTimeTest::isGiveBack, Integer.MAX_VALUE);

        assertThatThrownBy(() -> contender.locks().tryAcquire(name, LEASE)).isInstanceOf(SdkClientException.class);
        contenderClock.advance(LEASE.plusSeconds(1));

        // 100 ms doubling up to 5 s: about a dozen tries in a lease of 30 s, then none
        assertThat(contender.faults().injected() - 1).isBetween(8, 14);
        assertThat(contenderClock.pending()).isZero();
    }

    private static boolean isGiveBack(SdkRequest request) {
        return request instanceof UpdateItemRequest update
                && update.updateExpression().startsWith("REMOVE");
    }

    /**
     * After many renewals whose answers were lost, a read finds which one was applied; the next renewal is due a
     * third of a lease after that one was sent, not a third of a lease after the read.
     */
    @Test
    void aRenewalSettledByAReadSchedulesTheNextFromTheSettledVersionsSendTime() {
        Duration lease = Duration.ofSeconds(60);
        Contenders.Contender holder =
                contenders.add(b -> b.clock(holderClock), o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        holder.locks().tryAcquire(name, lease).orElseThrow();
        List<Long> renewalsSent = new CopyOnWriteArrayList<>();
        List<Long> readsSent = new CopyOnWriteArrayList<>();
        holder.faults()
                .beforeSend("UpdateItem", () -> renewalsSent.add(holderClock.nanoTime()), Integer.MAX_VALUE)
                .beforeSend("GetItem", () -> readsSent.add(holderClock.nanoTime()), Integer.MAX_VALUE)
                .loseReply("UpdateItem", Timing.MAX_UNANSWERED);

        Duration step = Duration.ofMillis(10);
        while (readsSent.isEmpty() || renewalsSent.size() <= Timing.MAX_UNANSWERED) {
            holderClock.advance(step);
        }

        long lastUnanswered = renewalsSent.get(Timing.MAX_UNANSWERED - 1);
        long next = renewalsSent.get(Timing.MAX_UNANSWERED);
        assertThat(readsSent.get(0) - lastUnanswered)
                .as("the read came after a retry's pause")
                .isPositive();
        assertThat(Duration.ofNanos(next - lastUnanswered))
                .isBetween(lease.dividedBy(3), lease.dividedBy(3).plus(step));
    }

    @Test
    void aLeaseWhoseRenewalsFailEndsOnItsOwnClockBeforeItsEndAndIsExpired() {
        // without the SDK's retries, whose back-off runs in real time
        Contenders.Contender holder =
                contenders.add(b -> b.clock(holderClock), o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        Lease held = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        holder.faults().blackhole("UpdateItem").blackhole("GetItem");

        holderClock.advance(LEASE.multipliedBy(9).dividedBy(10));
        assertThat(held.isHeld()).as("nine tenths into the lease").isTrue();
        holderClock.advance(LEASE.dividedBy(10));

        assertThat(held.isHeld()).isFalse();
        assertThat(held.whenEnded()).isCompletedWithValue(LeaseEnd.EXPIRED);
        assertThat(holderClock.pending())
                .as("nothing left scheduled for an ended lease")
                .isZero();
    }
}
