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
 * <p>Invalid values stop startup with a description that names the property and what to change.
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

    private final TimeToLive timeToLive = new TimeToLive();

    private final Leader leader = new Leader();

    private final Dynamodb dynamodb = new Dynamodb();

    private final Health health = new Health();

    /**
     * Whether the starter configures anything.
     *
     * @return true unless switched off
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Sets whether the starter configures anything.
     *
     * @param enabled false to contribute no bean
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * The table that holds the locks.
     *
     * @return the table name, or null when not set
     */
    public String getTableName() {
        return tableName;
    }

    /**
     * Sets the table that holds the locks.
     *
     * @param tableName the table name
     */
    public void setTableName(String tableName) {
        this.tableName = tableName;
    }

    /**
     * The name of the partition key attribute.
     *
     * @return the partition key name
     */
    public String getPartitionKey() {
        return partitionKey;
    }

    /**
     * Sets the name of the partition key attribute.
     *
     * @param partitionKey the partition key name
     */
    public void setPartitionKey(String partitionKey) {
        this.partitionKey = partitionKey;
    }

    /**
     * The name of the sort key attribute.
     *
     * @return the sort key name, or null for a table without one
     */
    public String getSortKey() {
        return sortKey;
    }

    /**
     * Sets the name of the sort key attribute.
     *
     * @param sortKey the sort key name, or null or empty for none
     */
    public void setSortKey(String sortKey) {
        this.sortKey = sortKey;
    }

    /**
     * The readable holder name written to the locks.
     *
     * @return the holder name, or null for the default
     */
    public String getHolder() {
        return holder;
    }

    /**
     * Sets the readable holder name written to the locks.
     *
     * @param holder the holder name, 1 to 256 characters
     */
    public void setHolder(String holder) {
        this.holder = holder;
    }

    /**
     * The lease of leaders whose {@code @LeaderOnly} sets none.
     *
     * @return the lease duration
     */
    public Duration getLeaseDuration() {
        return leaseDuration;
    }

    /**
     * Sets the lease of leaders whose {@code @LeaderOnly} sets none.
     *
     * @param leaseDuration the lease duration, 1s to 1d
     */
    public void setLeaseDuration(Duration leaseDuration) {
        this.leaseDuration = leaseDuration;
    }

    /**
     * Whether a missing table is created at startup.
     *
     * @return true to create it
     */
    public boolean isCreateTable() {
        return createTable;
    }

    /**
     * Sets whether a missing table is created at startup.
     *
     * @param createTable true to create it
     */
    public void setCreateTable(boolean createTable) {
        this.createTable = createTable;
    }

    /**
     * The settings of the health indicator.
     *
     * @return the health settings
     */
    public Health getHealth() {
        return health;
    }

    /**
     * The time-to-live settings of the lock items.
     *
     * @return the time-to-live settings
     */
    public TimeToLive getTimeToLive() {
        return timeToLive;
    }

    /**
     * The settings of the leader runner.
     *
     * @return the leader settings
     */
    public Leader getLeader() {
        return leader;
    }

    /**
     * The settings of the fallback DynamoDB client.
     *
     * @return the client settings
     */
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

        /**
         * The time-to-live attribute.
         *
         * @return the attribute, or null when the items have no time to live
         */
        public String getAttribute() {
            return attribute;
        }

        /**
         * Sets the time-to-live attribute.
         *
         * @param attribute the attribute, or null for no time to live
         */
        public void setAttribute(String attribute) {
            this.attribute = attribute;
        }

        /**
         * How long an item outlives its last lease.
         *
         * @return the retention
         */
        public Duration getRetention() {
            return retention;
        }

        /**
         * Sets how long an item outlives its last lease.
         *
         * @param retention the retention, an hour or more
         */
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

        /**
         * Whether this instance takes part in leader elections.
         *
         * @return true if it does
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether this instance takes part in leader elections.
         *
         * @param enabled true if it does
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * How long stopping the leader runner may take at most.
         *
         * @return the shutdown timeout
         */
        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        /**
         * Sets how long stopping the leader runner may take at most.
         *
         * @param shutdownTimeout the shutdown timeout, zero or more
         */
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

        /**
         * How long an outcome stands.
         *
         * @return the probe interval
         */
        public Duration getProbeInterval() {
            return probeInterval;
        }

        /**
         * Sets how long an outcome stands.
         *
         * @param probeInterval the probe interval
         */
        public void setProbeInterval(Duration probeInterval) {
            this.probeInterval = probeInterval;
        }

        /**
         * How long a health check waits for the table.
         *
         * @return the timeout
         */
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * Sets how long a health check waits for the table.
         *
         * @param timeout the timeout
         */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        /**
         * How long a failure lasts before DOWN.
         *
         * @return the down-after time
         */
        public Duration getDownAfter() {
            return downAfter;
        }

        /**
         * Sets how long a failure lasts before DOWN.
         *
         * @param downAfter the down-after time, zero for at once
         */
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

        /**
         * The endpoint of the fallback client.
         *
         * @return the endpoint, or null for the region's
         */
        public URI getEndpoint() {
            return endpoint;
        }

        /**
         * Sets the endpoint of the fallback client.
         *
         * @param endpoint the endpoint
         */
        public void setEndpoint(URI endpoint) {
            this.endpoint = endpoint;
        }

        /**
         * The region of the fallback client.
         *
         * @return the region, or null for the SDK's default chain
         */
        public String getRegion() {
            return region;
        }

        /**
         * Sets the region of the fallback client.
         *
         * @param region the region, such as eu-west-1
         */
        public void setRegion(String region) {
            this.region = region;
        }
    }
}
