package io.locktable.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.dynamodbv2.LockItem;
import com.amazonaws.services.dynamodbv2.model.LockCurrentlyUnavailableException;
import io.locktable.Lease;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each benchmark of {@link Alone} really completes its operation against the canned HTTP client. */
class AloneTest {

    private static Map<String, Long> counts(long get, long put, long update, long delete) {
        return Map.of("GetItem", get, "PutItem", put, "UpdateItem", update, "DeleteItem", delete);
    }

    @Test
    void lockTableAcquiresAndReleasesWithRisingFences() {
        Alone.Ours s = new Alone.Ours();
        s.watchFences = true;
        s.setUp();
        try {
            long last = 0;
            for (int i = 0; i < 5; i++) {
                Lease lease = s.cycle();
                assertThat(lease.fencingToken()).isGreaterThan(last);
                assertThat(lease.isHeld()).isFalse();
                last = lease.fencingToken();
            }
            assertThat(s.http.counts()).isEqualTo(counts(0, 0, 10, 0));
            assertThat(s.fenceRegressions).hasValue(0);
        } finally {
            s.tearDown();
        }
    }

    @Test
    void lockClientAcquiresAndReleases() throws Exception {
        Alone.Peer s = new Alone.Peer();
        s.setUp();
        try {
            for (int i = 0; i < 5; i++) {
                LockItem item = s.cycle();
                assertThat(item.getPartitionKey()).isEqualTo(Alone.NAME);
                assertThat(s.locks.hasLock(Alone.NAME, java.util.Optional.empty()))
                        .isFalse();
            }
            assertThat(s.http.counts()).isEqualTo(counts(5, 5, 0, 5));
        } finally {
            s.tearDown();
        }
    }

    @Test
    void lockTableRenewsOnTheCallersThread() {
        Alone.OursHolding s = new Alone.OursHolding();
        s.setUp();
        s.holdOne();
        try {
            s.http.resetCounts();
            long endBefore = s.lease.remaining().toNanos();
            for (int i = 0; i < 5; i++) {
                s.renew();
            }
            assertThat(s.http.counts()).isEqualTo(counts(0, 0, 5, 0));
            assertThat(s.lease.isHeld()).isTrue();
            assertThat(s.lease.remaining().toNanos()).isGreaterThanOrEqualTo(endBefore);
        } finally {
            s.tearDown();
        }
    }

    @Test
    void lockClientSendsHeartbeats() throws Exception {
        Alone.PeerHolding s = new Alone.PeerHolding();
        s.setUp();
        s.holdOne();
        try {
            s.http.resetCounts();
            String before = s.item.getRecordVersionNumber();
            for (int i = 0; i < 5; i++) {
                s.locks.sendHeartbeat(s.item);
            }
            assertThat(s.http.counts()).isEqualTo(counts(0, 0, 5, 0));
            assertThat(s.item.getRecordVersionNumber()).isNotEqualTo(before);
            assertThat(s.item.isExpired()).isFalse();
        } finally {
            s.tearDown();
        }
    }

    @Test
    void lockTablePollsAHeldLockWithOneReadOnceItSawTheHolder() {
        Alone.OursWaiting s = new Alone.OursWaiting();
        s.watchFences = true;
        s.setUp();
        try {
            assertThat(s.poll()).isEmpty(); // the first attempt writes, and is refused with the holder's item
            assertThat(s.http.counts()).isEqualTo(counts(0, 0, 1, 0));
            s.http.resetCounts();
            for (int i = 0; i < 5; i++) {
                assertThat(s.poll()).isEmpty();
            }
            assertThat(s.http.counts()).isEqualTo(counts(5, 0, 0, 0));
        } finally {
            s.tearDown();
        }
    }

    @Test
    void lockClientPollsAHeldLockWithOneRead() throws Exception {
        Alone.PeerWaiting s = new Alone.PeerWaiting();
        s.setUp();
        try {
            for (int i = 0; i < 5; i++) {
                assertThat(s.poll()).isInstanceOf(LockCurrentlyUnavailableException.class);
            }
            assertThat(s.http.counts()).isEqualTo(counts(5, 0, 0, 0));
        } finally {
            s.tearDown();
        }
    }

    @Test
    void theSdkAloneSendsTheSameRequests() {
        Alone bench = new Alone();
        Alone.SdkLockTable ours = new Alone.SdkLockTable();
        ours.timeout = true;
        ours.setUp();
        Alone.SdkLockClient peer = new Alone.SdkLockClient();
        peer.setUp();
        try {
            bench.sdkCycleLockTable(ours);
            bench.sdkRenewalLockTable(ours);
            bench.sdkPollLockTable(ours);
            assertThat(bench.sdkRefusedWrite(ours)).isNotNull();
            bench.sdkCycleLockClient(peer);
            bench.sdkRenewalLockClient(peer);
            bench.sdkPollLockClient(peer);
        } finally {
            ours.tearDown();
            peer.tearDown();
        }
    }
}
