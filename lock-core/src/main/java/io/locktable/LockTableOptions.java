package io.locktable;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What the items of the locks carry beyond the lock itself: a readable holder name and a time to live.
 *
 * <pre>{@code
 * LockTableOptions options = LockTableOptions.builder()
 *         .holder("orders@" + hostName + "/" + ProcessHandle.current().pid())
 *         .timeToLive("expiresAt", Duration.ofDays(7))
 *         .build();
 * }</pre>
 *
 * <p><b>Time to live is a trade-off.</b> It suits tables with many short-lived lock names: DynamoDB deletes an
 * expired item within a few days. But a deleted item starts its fencing token at 1 again, so a system that checks
 * tokens refuses the next holder until it forgets the old ones. A {@link LockTable} reports such a regression it
 * sees to its listener and logs it as an error. Leave time to live off for locks that fence writes.
 *
 * <p>The retention is at least {@link #MIN_TIME_TO_LIVE_RETENTION} and at least each lease: the attribute is written
 * from the holder's wall clock, and DynamoDB's sweeper reads its own; a shorter margin would let the sweeper delete a
 * held item whose holder's clock runs behind, and the next acquire would start the token at 1 while the old holder
 * still believes it holds the lock.
 */
public final class LockTableOptions {

    /**
     * The shortest time-to-live retention: an hour, a margin for wall clocks that run apart between the holder and
     * DynamoDB.
     */
    public static final Duration MIN_TIME_TO_LIVE_RETENTION = Duration.ofHours(1);

    /**
     * The names of the lock item's own attributes: no key or time-to-live attribute of a lock table may be one of
     * them.
     */
    public static final Set<String> RESERVED_ATTRIBUTES = Set.of("_type", "owner", "rvn", "fence", "leaseMs", "holder");

    /**
     * The longest holder name, in characters: {@link Builder#holder(String)} refuses a longer one, so a default made
     * of parts of unknown length (such as a host name) is cut to it.
     */
    public static final int MAX_HOLDER_LENGTH = 256;

    private static final LockTableOptions DEFAULTS = new Builder().build();

    private final @Nullable String holder;
    private final @Nullable String timeToLiveAttribute;
    private final Duration timeToLiveRetention;

    private LockTableOptions(Builder builder) {
        this.holder = builder.holder;
        this.timeToLiveAttribute = builder.timeToLiveAttribute;
        this.timeToLiveRetention = builder.timeToLiveRetention;
    }

    /**
     * Starts options with nothing set.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Options that add nothing to the items: no holder, no time to live.
     *
     * @return the default options
     */
    public static LockTableOptions defaults() {
        return DEFAULTS;
    }

    /**
     * The readable holder name written to the {@code holder} attribute.
     *
     * @return the holder name, or empty when none is written
     */
    public Optional<String> holder() {
        return Optional.ofNullable(holder);
    }

    /**
     * The attribute that holds the item's time to live, in epoch seconds.
     *
     * @return the attribute name, or empty when the items have no time to live
     */
    public Optional<String> timeToLiveAttribute() {
        return Optional.ofNullable(timeToLiveAttribute);
    }

    /**
     * How long an item outlives the end of its last lease before DynamoDB may delete it.
     *
     * @return the retention, {@link Duration#ZERO} without a time to live
     */
    public Duration timeToLiveRetention() {
        return timeToLiveRetention;
    }

    @Override
    public String toString() {
        return "LockTableOptions[holder=" + holder + ", timeToLiveAttribute=" + timeToLiveAttribute
                + ", timeToLiveRetention=" + timeToLiveRetention + "]";
    }

    /** Builds {@link LockTableOptions}. Not thread-safe. */
    public static final class Builder {
        private @Nullable String holder;
        private @Nullable String timeToLiveAttribute;
        private Duration timeToLiveRetention = Duration.ZERO;

        private Builder() {}

        /**
         * Writes a readable holder name, such as {@code host/pid}, to each lock this table acquires, so an operator
         * sees who holds it.
         *
         * @param holder the holder name, 1 to {@link LockTableOptions#MAX_HOLDER_LENGTH} characters, not blank
         * @return this builder
         * @throws IllegalArgumentException if the name is empty, blank or too long
         * @throws NullPointerException if the name is null
         */
        public Builder holder(String holder) {
            Objects.requireNonNull(holder, "holder");
            if (holder.isBlank() || holder.length() > MAX_HOLDER_LENGTH) {
                throw new IllegalArgumentException(
                        "holder must be 1 to " + MAX_HOLDER_LENGTH + " characters and not blank, was '" + holder + "'");
            }
            this.holder = holder;
            return this;
        }

        /**
         * Gives each lock item a time to live: at each acquire and renewal the attribute is set to the end of the
         * lease plus {@code retention}, in epoch seconds. Enable time to live on that attribute in DynamoDB. See
         * the class documentation for what it costs fencing.
         *
         * @param attribute the time-to-live attribute of the table
         * @param retention how long an item outlives its last lease: at least {@link #MIN_TIME_TO_LIVE_RETENTION},
         *     and at least the longest lease acquired (an acquire of a longer lease is refused)
         * @return this builder
         * @throws IllegalArgumentException if the attribute is empty or one of the lock's own attributes, or the
         *     retention is under an hour
         * @throws NullPointerException if an argument is null
         */
        public Builder timeToLive(String attribute, Duration retention) {
            Objects.requireNonNull(attribute, "attribute");
            Objects.requireNonNull(retention, "retention");
            if (attribute.isBlank()) {
                throw new IllegalArgumentException("timeToLive attribute must not be empty");
            }
            if (RESERVED_ATTRIBUTES.contains(attribute)) {
                throw new IllegalArgumentException("timeToLive attribute '" + attribute
                        + "' is one of the lock item's own attributes " + RESERVED_ATTRIBUTES);
            }
            if (retention.compareTo(MIN_TIME_TO_LIVE_RETENTION) < 0) {
                throw new IllegalArgumentException("timeToLive retention must be at least " + MIN_TIME_TO_LIVE_RETENTION
                        + " (was " + retention + "): DynamoDB could otherwise delete a held lock item when the"
                        + " holder's wall clock runs behind, and its fencing token would start again at 1");
            }
            this.timeToLiveAttribute = attribute;
            this.timeToLiveRetention = retention;
            return this;
        }

        /**
         * Builds the options.
         *
         * @return the options
         */
        public LockTableOptions build() {
            return new LockTableOptions(this);
        }
    }
}
