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
 * <p><b>Time to live is a trade-off.</b> It suits tables with many short-lived lock names, but a deleted item's
 * fencing token starts again from what the acquiring table remembers of the lock (1 if nothing), so a system that
 * checks tokens may refuse the next holder; the table logs and reports a regression it sees. Leave it off for locks
 * that fence writes. The retention is at least {@link #MIN_TIME_TO_LIVE_RETENTION} and each lease, a margin for the
 * holder's and DynamoDB's wall clocks running apart.
 */
public final class LockTableOptions {

    /** The shortest time-to-live retention, an hour. */
    public static final Duration MIN_TIME_TO_LIVE_RETENTION = Duration.ofHours(1);

    /** The lock item's own attributes: no key or time-to-live attribute may be one of them. */
    public static final Set<String> RESERVED_ATTRIBUTES = Set.of("_type", "owner", "rvn", "fence", "leaseMs", "holder");

    /** The longest holder name, in characters. */
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

    /** @return a new builder with nothing set */
    public static Builder builder() {
        return new Builder();
    }

    /** @return options that add nothing to the items */
    public static LockTableOptions defaults() {
        return DEFAULTS;
    }

    /** @return the holder name written to the {@code holder} attribute, or empty */
    public Optional<String> holder() {
        return Optional.ofNullable(holder);
    }

    /** @return the attribute that holds the item's time to live in epoch seconds, or empty */
    public Optional<String> timeToLiveAttribute() {
        return Optional.ofNullable(timeToLiveAttribute);
    }

    /** @return how long an item outlives its last lease, {@link Duration#ZERO} without a time to live */
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
         * Writes a readable holder name, such as {@code host/pid}, to each lock this table acquires.
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
         * Sets the attribute, at each acquire and renewal, to the lease's end plus {@code retention} in epoch seconds;
         * enable time to live on it in DynamoDB ({@link LockTable#createTableIfMissing()} does).
         *
         * @param attribute the time-to-live attribute of the table
         * @param retention how long an item outlives its last lease: at least {@link #MIN_TIME_TO_LIVE_RETENTION}, and at
         *     least the longest lease acquired (a longer lease is refused); one too long to add to a date ({@code
         *     ChronoUnit.FOREVER.getDuration()}) writes the latest date, which never expires
         * @return this builder
         * @throws IllegalArgumentException if the attribute is empty or one of the lock's own, or the retention under an hour
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

        /** @return the options */
        public LockTableOptions build() {
            return new LockTableOptions(this);
        }
    }
}
