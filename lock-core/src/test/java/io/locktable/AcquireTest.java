package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TableKeys;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Acquiring over an engine: the requests sent, the item as stored, racers on its conditional write and tables of
 * other keys. What a table decides about an acquire is in {@link AcquireDecisionTest}, in memory.
 */
@DynamoDbEngineTest
class AcquireTest {

    private static final Duration LEASE = Duration.ofSeconds(10);

    private final DynamoDbEngine engine;
    private final TestTable table;

    @AutoClose
    private final Contenders contenders;

    AcquireTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
    }

    @Test
    void aFreeLockIsTakenWithExactlyOneWrite() {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();

        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(a.requests().operations()).containsExactly("UpdateItem");
        assertThat(lease.isHeld()).isTrue();
        assertThat(lease.name()).isEqualTo(name);
        assertThat(lease.fencingToken()).isEqualTo(1);
        assertThat(lease.owner()).startsWith(a.locks().owner() + ".");
        assertThat(lease.duration()).isEqualTo(LEASE);
        assertThat(lease.remaining()).isPositive().isLessThanOrEqualTo(LEASE);
        Map<String, AttributeValue> item = contenders.item(name);
        assertThat(item.get("_type").s()).isEqualTo("LOCK");
        assertThat(item.get("owner").s()).startsWith(a.locks().owner() + ".");
        assertThat(item.get("fence").n()).isEqualTo("1");
        assertThat(item.get("leaseMs").n()).isEqualTo("10000");
        assertThat(item.get("rvn").s()).isNotBlank();
        assertThat(item).doesNotContainKeys("holder");
    }

    @Test
    void eightRacersOnAFreeLockGiveExactlyOneWinnerAndRaiseTheFenceByOne() throws Exception {
        for (int round = 0; round < 5; round++) {
            String name = Contenders.lockName();
            List<Contenders.Contender> racers = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                racers.add(contenders.add());
            }
            ExecutorService pool = Executors.newFixedThreadPool(8);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Optional<Lease>>> results = new ArrayList<>();
            for (Contenders.Contender racer : racers) {
                results.add(pool.submit(() -> {
                    start.await();
                    return racer.locks().tryAcquire(name, LEASE);
                }));
            }
            start.countDown();
            List<Lease> winners = new ArrayList<>();
            for (Future<Optional<Lease>> result : results) {
                result.get().ifPresent(winners::add);
            }
            pool.shutdown();

            assertThat(winners).hasSize(1);
            assertThat(winners.get(0).fencingToken()).isEqualTo(1);
            assertThat(contenders.item(name).get("fence").n()).isEqualTo("1");
            assertThat(contenders.item(name).get("owner").s())
                    .isEqualTo(winners.get(0).owner());
        }
    }

    @Test
    void releaseKeepsTheItemAndItsFenceAndTheNextAcquireGetsTheNextToken() {
        Contenders.Contender a = contenders.add();
        Contenders.Contender b = contenders.add();
        String name = Contenders.lockName();
        Lease first = a.locks().tryAcquire(name, LEASE).orElseThrow();

        first.release();

        Map<String, AttributeValue> released = contenders.item(name);
        assertThat(released).doesNotContainKey("owner");
        assertThat(released.get("fence").n()).isEqualTo("1");
        assertThat(first.isHeld()).isFalse();
        assertThat(first.whenEnded()).isCompletedWithValue(LeaseEnd.RELEASED);
        Lease second = b.locks().tryAcquire(name, LEASE).orElseThrow();
        assertThat(second.fencingToken()).isEqualTo(2);
        assertThat(second.tookOver()).isFalse();
        first.release();
        first.close();
        assertThat(contenders.item(name).get("owner").s()).startsWith(b.locks().owner() + ".");
    }

    @Test
    void aContenderThatSawTheLockHeldReadsBeforeItWrites() {
        Contenders.Contender a = contenders.add();
        Contenders.Contender b = contenders.add();
        String name = Contenders.lockName();
        Lease held = a.locks().tryAcquire(name, LEASE).orElseThrow();
        assertThat(b.locks().tryAcquire(name, LEASE)).isEmpty();
        held.release();
        b.requests().clear();

        Lease lease = b.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(b.requests().operations()).containsExactly("GetItem", "UpdateItem");
        assertThat(lease.fencingToken()).isEqualTo(2);
    }

    @Test
    void holderAndTimeToLiveAreWrittenWhenAsked() {
        Contenders.Contender a = contenders.add(builder -> builder.options(LockTableOptions.builder()
                .holder("orders@host-1/4711")
                .timeToLive("expiresAt", Duration.ofHours(1))
                .build()));
        String name = Contenders.lockName();
        long before = Instant.now().getEpochSecond();

        a.locks().tryAcquire(name, LEASE).orElseThrow();

        Map<String, AttributeValue> item = contenders.item(name);
        assertThat(item.get("holder").s()).isEqualTo("orders@host-1/4711");
        long expiresAt = Long.parseLong(item.get("expiresAt").n());
        assertThat(expiresAt).isBetween(before + 3600 + 9, Instant.now().getEpochSecond() + 3600 + 11);
        assertThat(a.locks().read(name).orElseThrow().holder()).contains("orders@host-1/4711");
    }

    @Test
    void aTimeToLiveRetentionOfForeverWritesTheLatestTimeInsteadOfFailingEachAcquire() {
        Contenders.Contender a = contenders.add(builder -> builder.options(LockTableOptions.builder()
                .timeToLive("expiresAt", ChronoUnit.FOREVER.getDuration())
                .build()));
        String name = Contenders.lockName();

        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(Long.parseLong(contenders.item(name).get("expiresAt").n()))
                .as("never expires")
                .isEqualTo(Instant.MAX.getEpochSecond());
        lease.release();
    }

    @Test
    void aHolderWithoutAHolderNameRemovesTheNameOfThePreviousOne() {
        Contenders.Contender named = contenders.add(builder ->
                builder.options(LockTableOptions.builder().holder("named").build()));
        Contenders.Contender plain = contenders.add();
        String name = Contenders.lockName();
        named.locks().tryAcquire(name, LEASE).orElseThrow().release();
        assertThat(contenders.item(name)).doesNotContainKeys("holder", "owner");

        plain.locks().tryAcquire(name, LEASE).orElseThrow();

        assertThat(contenders.item(name)).doesNotContainKeys("holder", "expiresAt");
    }

    @Test
    void worksOnATableWithoutASortKey(@TableKeys(partitionKey = "id", sortKey = "") TestTable plainTable) {
        Contenders onPlain = new Contenders(engine, plainTable);
        try (onPlain) {
            Contenders.Contender a = onPlain.add();
            Contenders.Contender b = onPlain.add();
            String name = Contenders.lockName();

            Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

            assertThat(b.locks().tryAcquire(name, LEASE)).isEmpty();
            Map<String, AttributeValue> item = onPlain.item(name);
            assertThat(item.keySet()).contains("id").doesNotContain("sk", "pk");
            assertThat(item.get("id").s()).isEqualTo("LOCK#" + name);
            lease.release();
            assertThat(b.locks().tryAcquire(name, LEASE)).isPresent();
            a.locks().verify();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void theSortKeyOfALockIsLock() {
        Contenders.Contender a = contenders.add();
        String name = Contenders.lockName();

        a.locks().tryAcquire(name, LEASE).orElseThrow();

        Map<String, AttributeValue> item = contenders.item(name);
        assertThat(item.get(table.partitionKey()).s()).isEqualTo("LOCK#" + name);
        assertThat(item.get(table.sortKey().orElseThrow()).s()).isEqualTo("LOCK");
    }

    @Test
    void readReturnsTheItemAsStored() {
        Contenders.Contender a = contenders.add(builder ->
                builder.options(LockTableOptions.builder().holder("reader-test").build()));
        String name = Contenders.lockName();
        assertThat(a.locks().read(name)).isEmpty();
        Lease lease = a.locks().tryAcquire(name, LEASE).orElseThrow();

        LockRecord record = a.locks().read(name).orElseThrow();

        assertThat(record.name()).isEqualTo(name);
        assertThat(record.owner()).contains(lease.owner());
        assertThat(record.holder()).contains("reader-test");
        assertThat(record.fencingToken()).isEqualTo(lease.fencingToken());
        assertThat(record.leaseDuration()).isEqualTo(LEASE);
        assertThat(record.isHeld()).isTrue();
        lease.release();
        LockRecord released = a.locks().read(name).orElseThrow();
        assertThat(released.isHeld()).isFalse();
        assertThat(released.holder()).isEmpty();
        assertThat(released.fencingToken()).isEqualTo(1);
    }
}
