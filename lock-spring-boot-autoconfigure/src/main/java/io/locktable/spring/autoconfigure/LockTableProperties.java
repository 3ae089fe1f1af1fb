package io.locktable.spring.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationUnit;

/**
 * The {@code locktable.*} properties of the auto-configured {@link io.locktable.LockTable}, {@link
 * io.locktable.spring.LeaderRunner} and fallback {@code DynamoDbClient}.
 *
 * <pre>
 * locktable.table-name=Shop
 * locktable.sort-key=sk
 * locktable.lease-duration=30s
 * </pre>
 *
 * <p>Invalid values stop startup with a description that names the property and what to change. As in Spring Boot's
 * own modules, each property is documented on its field (the metadata's description), not on its accessors.
 */
@ConfigurationProperties("locktable")
public final class LockTableProperties {

    /**
     * Whether the starter configures anything. When false it contributes no bean: no LockTable, no leader runner,
     * no @LeaderOnly advisor (so @LeaderOnly methods run on every instance like plain methods), no endpoint, meters
     * or health indicator. To keep an instance from running @LeaderOnly methods, set locktable.leader.enabled=false
     * instead.
     */
    private boolean enabled = true;

    /**
     * The DynamoDB table that holds the locks, with string key attributes. Required, unless the context defines a
     * LockTable bean of its own.
     */
    private @Nullable String tableName;

    /** The name of the table's partition key attribute, a string. */
    private String partitionKey = "pk";

    /** The name of the table's sort key attribute, a string. Leave it unset for a table without a sort key. */
    private @Nullable String sortKey;

    /**
     * A readable name of this instance, written to the locks it holds so an operator sees who holds what. Defaults
     * to "<spring.application.name>@<host>/<pid>".
     */
    private @Nullable String holder;

    /**
     * How long a leader's lease lasts without a renewal, from 1s to 1d, for @LeaderOnly methods that set none. A
     * number without a unit is in seconds; one of 1000 or more, surely meant in milliseconds, stops startup.
     */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration leaseDuration = Duration.ofSeconds(30);

    /**
     * Whether to create the table at startup when it does not exist (billed per request, string keys). Meant for
     * development; without it a missing table stops startup.
     */
    private boolean createTable = false;

    /** The time to live of the lock items. */
    private final TimeToLive timeToLive = new TimeToLive();

    /** The leader runner behind @LeaderOnly. */
    private final Leader leader = new Leader();

    /** The DynamoDB client built when the context has none. */
    private final Dynamodb dynamodb = new Dynamodb();

    /** The locktable health indicator. */
    private final Health health = new Health();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = tableName;
    }

    public String getPartitionKey() {
        return partitionKey;
    }

    public void setPartitionKey(String partitionKey) {
        this.partitionKey = partitionKey;
    }

    public String getSortKey() {
        return sortKey;
    }

    public void setSortKey(String sortKey) {
        this.sortKey = sortKey;
    }

    public String getHolder() {
        return holder;
    }

    public void setHolder(String holder) {
        this.holder = holder;
    }

    public Duration getLeaseDuration() {
        return leaseDuration;
    }

    public void setLeaseDuration(Duration leaseDuration) {
        this.leaseDuration = leaseDuration;
    }

    public boolean isCreateTable() {
        return createTable;
    }

    public void setCreateTable(boolean createTable) {
        this.createTable = createTable;
    }

    public Health getHealth() {
        return health;
    }

    public TimeToLive getTimeToLive() {
        return timeToLive;
    }

    public Leader getLeader() {
        return leader;
    }

    public Dynamodb getDynamodb() {
        return dynamodb;
    }

    /**
     * The time to live of the lock items: off unless an attribute is set. DynamoDB deletes an expired item within
     * days, and a deleted item restarts its fencing token at 1, which a system that checks tokens refuses: leave
     * it off for locks that fence writes.
     */
    public static final class TimeToLive {

        /**
         * The table's time-to-live attribute, set on each lock item to the end of its lease plus the retention, in
         * epoch seconds. A table created by locktable.create-table gets its time to live enabled on it; on any other
         * table a WARN at startup says when the table's time to live is not on it. Unset (the default): the items
         * have no time to live.
         */
        private @Nullable String attribute;

        /**
         * How long a lock item outlives the end of its last lease before DynamoDB may delete it: at least an hour (a
         * margin for wall clocks that run apart) and at least the lease. A number without a unit is in seconds.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration retention = Duration.ofDays(7);

        public String getAttribute() {
            return attribute;
        }

        public void setAttribute(String attribute) {
            this.attribute = attribute;
        }

        public Duration getRetention() {
            return retention;
        }

        public void setRetention(Duration retention) {
            this.retention = retention;
        }
    }

    /** The settings of the leader runner behind {@code @LeaderOnly}. */
    public static final class Leader {

        /**
         * Whether this instance takes part in leader elections. When false there is no LeaderRunner: this instance
         * never leads, and every @LeaderOnly call is skipped.
         */
        private boolean enabled = true;

        /**
         * How long stopping the leader runner may take at most, when the application shuts down: waiting for the
         * @LeaderOnly calls in flight, then releasing the leases (for every name at once). A lease still held then is
         * released when the lock table closes. Keep it below spring.lifecycle.timeout-per-shutdown-phase. A number
         * without a unit is in seconds; one of 1000 or more, surely meant in milliseconds, stops startup.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration shutdownTimeout = Duration.ofSeconds(20);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }
    }

    /** The settings of the {@code locktable} health indicator. */
    public static final class Health {

        /**
         * How long the outcome of a request to the lock table (or of the health check's own DescribeTable) stands
         * before a health check asks the table again. A number without a unit is in seconds; one of 1000 or more,
         * surely meant in milliseconds, stops startup.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration probeInterval = Duration.ofSeconds(10);

        /**
         * How long a health check waits for the table's answer to its DescribeTable; no answer counts as a failure.
         * A number without a unit is in seconds; one of 1000 or more, surely meant in milliseconds, stops startup.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration timeout = Duration.ofSeconds(2);

        /**
         * How long requests to the lock table, or a leadership, must keep failing without a success before the
         * indicator reports DOWN; until then it reports UP with the error. A number without a unit is in seconds; one of 1000 or more,
         * surely meant in milliseconds, stops startup.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration downAfter = Duration.ofSeconds(30);

        public Duration getProbeInterval() {
            return probeInterval;
        }

        public void setProbeInterval(Duration probeInterval) {
            this.probeInterval = probeInterval;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Duration getDownAfter() {
            return downAfter;
        }

        public void setDownAfter(Duration downAfter) {
            this.downAfter = downAfter;
        }
    }

    /** The settings of the DynamoDB client built when the context has none. */
    public static final class Dynamodb {

        /**
         * The endpoint of the DynamoDB client the starter builds when the context has none, for a local engine
         * such as http://localhost:8000. Unset: the region's AWS endpoint.
         */
        private @Nullable URI endpoint;

        /**
         * The region of the DynamoDB client the starter builds when the context has none. Unset: the SDK's default
         * region chain (AWS_REGION, aws.region, the profile...).
         */
        private @Nullable String region;

        public URI getEndpoint() {
            return endpoint;
        }

        public void setEndpoint(URI endpoint) {
            this.endpoint = endpoint;
        }

        public String getRegion() {
            return region;
        }

        public void setRegion(String region) {
            this.region = region;
        }
    }
}
