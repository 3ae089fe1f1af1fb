package io.locktable.bench;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Renewal lateness of many leases: each lease's renewal is expected one period after the send time of its previous
 * acquire or renewal, and the lateness is how much later it was sent. Samples go to arrays allocated up front, so
 * recording allocates nothing that would count as heap per lease; samples after {@link #markSteady()} are kept apart
 * as the steady state.
 */
public final class Lateness {

    private final long periodNanos;
    private final long[] lastSend;
    private final long[] all;
    private final long[] steady;
    private final AtomicInteger allCount = new AtomicInteger();
    private final AtomicInteger steadyCount = new AtomicInteger();
    private final AtomicInteger renewals = new AtomicInteger();
    private volatile long steadyFrom = Long.MAX_VALUE;

    /**
     * Allocates the arrays.
     *
     * @param leases how many leases, numbered from 0
     * @param periodNanos the expected period
     * @param capacity how many samples to keep at most
     */
    public Lateness(int leases, long periodNanos, int capacity) {
        this.periodNanos = periodNanos;
        this.lastSend = new long[leases];
        this.all = new long[capacity];
        this.steady = new long[capacity];
    }

    /**
     * A lease was acquired; its first renewal is due a period after this send time.
     *
     * @param lease the lease number
     * @param sentNanos when its acquire was sent
     */
    public synchronized void acquired(int lease, long sentNanos) {
        lastSend[lease] = sentNanos;
    }

    /**
     * A renewal was sent. The first one of a lease not marked {@link #acquired} only starts its schedule.
     *
     * @param lease the lease number
     * @param sentNanos when it was sent
     */
    public void renewed(int lease, long sentNanos) {
        renewals.incrementAndGet();
        long previous;
        synchronized (this) {
            previous = lastSend[lease];
            lastSend[lease] = sentNanos;
        }
        if (previous == 0) {
            return;
        }
        long late = sentNanos - previous - periodNanos;
        add(all, allCount, late);
        if (previous >= steadyFrom) {
            add(steady, steadyCount, late);
        }
    }

    /** From now on, renewals whose previous send came after this moment count as steady state too. */
    public void markSteady() {
        steadyFrom = System.nanoTime();
    }

    /**
     * Renewals seen.
     *
     * @return how many
     */
    public int renewals() {
        return renewals.get();
    }

    /**
     * Steady-state samples so far.
     *
     * @return how many
     */
    public int steadySamples() {
        return Math.min(steadyCount.get(), steady.length);
    }

    /**
     * Lateness of every renewal.
     *
     * @return nanoseconds
     */
    public Summary all() {
        return Summary.of(all, Math.min(allCount.get(), all.length));
    }

    /**
     * Lateness of renewals whose schedule started in the steady state.
     *
     * @return nanoseconds
     */
    public Summary steady() {
        return Summary.of(steady, steadySamples());
    }

    /**
     * The expected period.
     *
     * @return nanoseconds
     */
    public long periodNanos() {
        return periodNanos;
    }

    private static void add(long[] samples, AtomicInteger count, long value) {
        int index = count.getAndIncrement();
        if (index < samples.length) {
            samples[index] = value;
        }
    }
}
