package io.locktable.spring.autoconfigure;

import java.net.URI;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.boot.convert.DurationUnit;

/**
 * The {@code locktable.*} properties, such as {@code locktable.table-name=Shop}. An invalid value stops startup with a
 * description that names the property.
 */
@ConfigurationProperties("locktable")
public final class LockTableProperties {

    /**
     * Whether the starter contributes any bean. When false, @LeaderOnly methods run on every instance like plain
     * methods; to keep an instance from leading, set locktable.leader.enabled=false instead.
     */
    private boolean enabled = true;

    /** The DynamoDB table that holds the locks. Required unless the context defines a LockTable bean. */
    private @Nullable String tableName;

    /** The name of the table's partition key attribute, a string. */
    private String partitionKey = "pk";

    /** The name of the table's sort key attribute, a string; unset for a table without one. */
    private @Nullable String sortKey;

    /** A readable name of this instance, written to its locks. Defaults to "<spring.application.name>@<host>/<pid>". */
    private @Nullable String holder;

    /**
     * How long a lease lasts without a renewal, from 1s to 1d, for annotated methods that set none. A number without
     * a unit is in seconds; one of 1000 or more, surely meant in milliseconds, stops startup.
     */
    @DurationUnit(ChronoUnit.SECONDS)
    private Duration leaseDuration = Duration.ofSeconds(30);

    /** Whether to create the table at startup when it is missing (for development); else a missing table stops it. */
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

    /** The time to live of the lock items: off unless an attribute is set. */
    public static final class TimeToLive {

        /**
         * The table's time-to-live attribute, set on each lock item to the end of its lease plus the retention. A
         * deleted item restarts its fencing token at 1: leave it unset for locks that fence writes.
         */
        private @Nullable String attribute;

        /** How long a lock item outlives its last lease: at least 1h and the longest lease. A number is seconds. */
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

    /** The leader runner behind {@code @LeaderOnly}. */
    public static final class Leader {

        /** Whether this instance takes part in elections. When false, every @LeaderOnly call is skipped. */
        private boolean enabled = true;

        /**
         * How long stopping the runners may take at shutdown: waiting for the calls in flight, then releasing the
         * leases. Keep it below spring.lifecycle.timeout-per-shutdown-phase. A number without a unit is in seconds;
         * one of 1000 or more, surely meant in milliseconds, stops startup.
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

    /** The {@code locktable} health indicator. */
    public static final class Health {

        private static final String UNUSED = "The health indicator sends no request of its own: it reports from what"
                + " the lock table's requests saw, so there is nothing to probe or to time out.";

        /** Unused: the health indicator sends no request of its own. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration probeInterval = Duration.ofSeconds(10);

        /** Unused: the health indicator sends no request of its own. */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration timeout = Duration.ofSeconds(2);

        /**
         * How long failures (requests, renewals, a leadership's acquires) must keep coming, without an answer in
         * between, before the indicator reports DOWN; until then it is UP with the error. A number without a unit is
         * in seconds; one of 1000 or more stops startup.
         */
        @DurationUnit(ChronoUnit.SECONDS)
        private Duration downAfter = Duration.ofSeconds(30);

        /**
         * @return the value set, which nothing reads
         * @deprecated the health indicator reports from the lock table's own requests and sends none
         */
        @Deprecated(since = "0.1.0")
        @DeprecatedConfigurationProperty(reason = UNUSED, since = "0.1.0")
        public Duration getProbeInterval() {
            return probeInterval;
        }

        /**
         * @param probeInterval ignored
         * @deprecated see {@link #getProbeInterval()}
         */
        @Deprecated(since = "0.1.0")
        public void setProbeInterval(Duration probeInterval) {
            this.probeInterval = probeInterval;
        }

        /**
         * @return the value set, which nothing reads
         * @deprecated the health indicator reports from the lock table's own requests and sends none
         */
        @Deprecated(since = "0.1.0")
        @DeprecatedConfigurationProperty(reason = UNUSED, since = "0.1.0")
        public Duration getTimeout() {
            return timeout;
        }

        /**
         * @param timeout ignored
         * @deprecated see {@link #getTimeout()}
         */
        @Deprecated(since = "0.1.0")
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

    /** The DynamoDB client built when the context has none. */
    public static final class Dynamodb {

        /** The endpoint of the client, for a local engine such as http://localhost:8000; unset for AWS's. */
        private @Nullable URI endpoint;

        /** The region of the client; unset for the SDK's default region chain (AWS_REGION, the profile...). */
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
