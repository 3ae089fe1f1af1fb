package io.locktable;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * What changes in one held lease: its record version, end, unanswered renewals and place on the timer; {@link
 * Lease} is the immutable handle over it. Guarded by its own monitor, which no caller can reach (so none can hold
 * up a renewal), held only briefly and never over a wait or a request; the keeper holds it across a change and the
 * event it announces. Every field is paid per lease: the record version is two longs, and {@link #whenEnded()}'s
 * future is made only when asked for.
 */
final class LeaseState {

    private long versionHigh; // guarded by this: the record version the last confirmed write set
    private long versionLow; // guarded by this
    private volatile long endNanos; // written under this; read without it by the timer and the keeper
    private volatile long renewedAtMillis; // written under this
    private volatile @Nullable LeaseEnd end; // set once, under this; null while the lease is live
    private @Nullable CompletableFuture<LeaseEnd> ended; // guarded by this; made by the first whenEnded()
    private boolean announced; // guarded by this: the end was announced
    /** Record versions that renewals sent without an answer, with their send times; guarded by this. */
    private @Nullable Map<String, Long> unanswered; // null while every renewal was answered
    /** The work under this lease, stopped by its end ({@link WorkStop}); guarded by this, null while there is none. */
    private @Nullable List<WorkStop> stops;

    // guarded by the table's LeaseTimer (its monitor), read and written by it alone: this lease's place in its
    // queue,
    // when it wakes, whether a renewal is under way
    long wakeNanos;
    int timerIndex = -1;
    boolean renewing;

    LeaseState(UUID recordVersion, long endNanos, long renewedAtMillis) {
        this.versionHigh = recordVersion.getMostSignificantBits();
        this.versionLow = recordVersion.getLeastSignificantBits();
        this.endNanos = endNanos;
        this.renewedAtMillis = renewedAtMillis;
    }

    /** See {@link Lease#isHeld()}: not ended, and {@code nowNanos} before the end. */
    boolean isHeld(long nowNanos) {
        // a query only: the table's timer ends the lease at its deadline; a difference, since nanoTime may wrap
        return end == null && nowNanos - endNanos < 0;
    }

    /** See {@link Lease#remaining()}. */
    Duration remaining(long nowNanos) {
        if (!isHeld(nowNanos)) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, endNanos - nowNanos));
    }

    Instant renewedAt() {
        return Instant.ofEpochMilli(renewedAtMillis);
    }

    @Nullable
    LeaseEnd end() {
        return end;
    }

    boolean isLive() {
        return end == null;
    }

    long endNanos() {
        return endNanos;
    }

    /** See {@link Lease#whenEnded()}: a copy, so that no caller completes the lease's own future. */
    CompletableFuture<LeaseEnd> whenEnded() {
        CompletableFuture<LeaseEnd> future;
        synchronized (this) {
            if (ended == null) {
                ended = new CompletableFuture<>();
                if (announced && end != null) {
                    ended.complete(end);
                }
            }
            future = ended;
        }
        return future.copy();
    }

    synchronized String recordVersion() {
        return new UUID(versionHigh, versionLow).toString();
    }

    /** Candidates for a renewal's condition: the confirmed version, the unanswered ones, and the new one. */
    synchronized List<String> startRenewal(String newVersion, long sentNanos) {
        if (unanswered == null) {
            unanswered = new LinkedHashMap<>(4);
        }
        unanswered.put(newVersion, sentNanos);
        List<String> candidates = new ArrayList<>(unanswered.size() + 1);
        candidates.add(recordVersion());
        candidates.addAll(unanswered.keySet());
        return candidates;
    }

    synchronized int unansweredCount() {
        return unanswered == null ? 0 : unanswered.size();
    }

    /**
     * A renewal wrote {@code version} (one this lease generated, a UUID), answered at {@code answeredNanos}: the
     * lease now ends at that renewal's send time plus its duration.
     */
    synchronized boolean renewed(String version, long durationNanos, long answeredNanos, Instant wallTime) {
        Long sent = unanswered == null ? null : unanswered.get(version);
        if (end != null || sent == null || !Protocol.renewalCounts(endNanos, answeredNanos)) {
            // answered after the lease ran out on this clock: it stays ended (isHeld() never turns true again)
            return false;
        }
        unanswered = null;
        UUID confirmed = UUID.fromString(version);
        versionHigh = confirmed.getMostSignificantBits();
        versionLow = confirmed.getLeastSignificantBits();
        endNanos = Protocol.endAfterRenewal(endNanos, sent, durationNanos);
        renewedAtMillis = wallTime.toEpochMilli();
        return true;
    }

    /** The record versions of the renewals whose answer never came, with their send times: a copy. */
    synchronized Map<String, Long> unanswered() {
        return unanswered == null ? Map.of() : Map.copyOf(unanswered);
    }

    /** A read showed the item still at the confirmed version: the unanswered renewals were not applied. */
    synchronized void forgetUnanswered() {
        unanswered = null;
    }

    /**
     * Registers work to stop when the lease ends; returns false, registering nothing, if it has ended already (the
     * caller then stops the work at once). Stops closed since they were registered are dropped here, so a term that
     * runs a call every second for days keeps only the calls in flight.
     */
    synchronized boolean register(WorkStop stop) {
        if (end != null) {
            return false;
        }
        if (stops == null) {
            stops = new ArrayList<>(2);
        } else {
            stops.removeIf(WorkStop::isDone);
        }
        stops.add(stop);
        return true;
    }

    /**
     * Ends the lease once; returns null if it had ended already, else the work to stop now, which the keeper stops
     * before anything else hears of the end. {@link #whenEnded()} completes only with {@link #announceEnd()}, on the
     * thread the keeper chooses. The keeper takes it off the timer.
     */
    synchronized @Nullable List<WorkStop> finish(LeaseEnd reason) {
        if (end != null) {
            return null;
        }
        end = reason;
        unanswered = null;
        List<WorkStop> toStop = stops == null ? List.of() : stops;
        stops = null;
        return toStop;
    }

    /** Completes {@link #whenEnded()} once the lease has ended, outside this monitor (the future runs callbacks). */
    void announceEnd() {
        CompletableFuture<LeaseEnd> future;
        LeaseEnd reason;
        synchronized (this) {
            reason = end;
            if (reason == null) {
                return;
            }
            announced = true;
            future = ended;
        }
        if (future != null) {
            future.complete(reason);
        }
    }
}
