package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The argument checks of the public API, with the names they give: no engine, as none of them sends a request (the
 * tables are in memory, and the client given to the builders is never used).
 */
class ArgumentChecksTest {

    private static final Duration LEASE = Duration.ofSeconds(5);

    /** A client the builders take and never call: nothing listens at its endpoint. */
    private final DynamoDbClient client = DynamoDbClient.builder()
            .region(Region.US_EAST_1)
            .credentialsProvider(AnonymousCredentialsProvider.create())
            .endpointOverride(URI.create("http://127.0.0.1:9"))
            .build();

    private final List<LockTable> tables = new ArrayList<>();

    @AfterEach
    void close() {
        tables.forEach(LockTable::close);
        client.close();
    }

    private LockTable table() {
        return table(b -> b);
    }

    private LockTable table(UnaryOperator<LockTable.Builder> options) {
        LockTable table = options.apply(LockTable.inMemory("ArgumentChecks-" + UUID.randomUUID()))
                .build();
        tables.add(table);
        return table;
    }

    @Test
    void nullOrEmptyNamesAreRefused() {
        LockTable locks = table();
        assertThatThrownBy(() -> locks.tryAcquire(null, LEASE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> locks.tryAcquire("", LEASE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.acquire("", LEASE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.acquire(null, LEASE, LEASE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.runAsLeader("", LEASE, lease -> {}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.read("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.tryAcquire("x".repeat(2100), LEASE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("too long");
    }

    @Test
    void leasesOutsideOneSecondToOneDayAreRefused() {
        LockTable locks = table();
        assertThatThrownBy(() -> locks.tryAcquire("a", Duration.ofMillis(999)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("leaseDuration")
                .hasMessageContaining("'a'");
        assertThatThrownBy(() -> locks.acquire("a", Duration.ofDays(1).plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.runAsLeader("a", Duration.ZERO, lease -> {}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> locks.tryAcquire("a", null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> locks.runAsLeader("a", LEASE, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> locks.acquire("a", LEASE, Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(LockTable.MIN_LEASE_DURATION).isEqualTo(Duration.ofSeconds(1));
        assertThat(LockTable.MAX_LEASE_DURATION).isEqualTo(Duration.ofDays(1));
        assertThat(locks.tryAcquire("edge-min", LockTable.MIN_LEASE_DURATION)).isPresent();
        assertThat(locks.tryAcquire("edge-max", LockTable.MAX_LEASE_DURATION)).isPresent();
    }

    @Test
    void badBuilderArgumentsAreRefusedWithTheirName() {
        assertThatThrownBy(() -> LockTable.builder((DynamoDbClient) null, "Shop", "pk"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
        assertThatThrownBy(() -> LockTable.builder((DynamoDbAsyncClient) null, "Shop", "pk"))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("client");
        assertThatThrownBy(() -> LockTable.builder(client, "", "pk"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tableName");
        assertThatThrownBy(() -> LockTable.builder(client, "Shop", ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitionKey");
        assertThatThrownBy(() -> LockTable.builder(client, "Shop", " "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("partitionKey must be 1 to 255 characters, not blank");
        assertThatThrownBy(() -> LockTable.builder(client, "Shop", "owner"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("partitionKey 'owner' is the name of one of the lock item's own attributes");
        assertThatThrownBy(() -> LockTable.builder(client, "Shop", "pk").sortKey("leaseMs"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("sortKey 'leaseMs' is the name of one of the lock item's own attributes");
        assertThatThrownBy(() -> LockTable.builder(client, "Shop", "pk").sortKey("pk"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sortKey of table Shop must differ from its partitionKey 'pk'");
        LockTableOptions expiresAtSk =
                LockTableOptions.builder().timeToLive("sk", Duration.ofHours(1)).build();
        assertThatThrownBy(() -> LockTable.builder(client, "Shop", "sk").options(expiresAtSk))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("timeToLive attribute 'sk' of table Shop is one of its key attributes");
        assertThatThrownBy(() ->
                        LockTable.builder(client, "Shop", "pk").sortKey("sk").options(expiresAtSk))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeToLive");
        assertThatThrownBy(() -> LockTable.builder(client, "Shop", "pk")
                        .options(expiresAtSk)
                        .sortKey("sk"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeToLive");
        assertThatThrownBy(() -> LockTableOptions.builder().timeToLive("fence", Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockTableOptions.builder().holder(" ")).isInstanceOf(IllegalArgumentException.class);
        String longest = "h".repeat(LockTableOptions.MAX_HOLDER_LENGTH);
        assertThat(LockTableOptions.builder().holder(longest).build().holder()).contains(longest);
        assertThatThrownBy(() -> LockTableOptions.builder().holder(longest + "h"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("holder must be 1 to 256 characters");
    }

    @Test
    void aTimeToLiveRetentionUnderAnHourOrUnderTheLeaseIsRefusedSayingWhy() {
        for (Duration retention : new Duration[] {Duration.ZERO, Duration.ofMinutes(59)}) {
            assertThatThrownBy(() -> LockTableOptions.builder().timeToLive("expiresAt", retention))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least PT1H")
                    .hasMessageContaining("fencing token");
        }
        LockTable locks = table(b -> b.options(LockTableOptions.builder()
                .timeToLive("expiresAt", Duration.ofHours(1))
                .build()));
        assertThatThrownBy(() -> locks.tryAcquire("report", Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("report")
                .hasMessageContaining("retention PT1H");
    }

    @Test
    void theLeaseRangeIsOneRuleFromASecondToADayBothIncluded() {
        assertThat(LockTable.isLeaseDuration(LockTable.MIN_LEASE_DURATION)).isTrue();
        assertThat(LockTable.isLeaseDuration(LockTable.MAX_LEASE_DURATION)).isTrue();
        assertThat(LockTable.isLeaseDuration(Duration.ofMillis(999))).isFalse();
        assertThat(LockTable.isLeaseDuration(Duration.ofDays(1).plusMillis(1))).isFalse();
        assertThat(LockTable.isLeaseDuration(Duration.ofSeconds(-30))).isFalse();
        assertThat(LockTable.isLeaseDuration(null)).isFalse();
    }
}
