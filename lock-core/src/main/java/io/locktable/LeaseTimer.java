package io.locktable;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;

/**
 * The timer of a table's leases and the set of them: one heap by next wake, with a single task on the clock for
 * the earliest. A lease wakes when its renewal is due, or, while one is under way, a guard before its end (the
 * expiry watch). The lease is its own heap entry ({@link LeaseState} holds its place), so nothing is allocated per
 * lease or renewal. What a woken lease does is {@link Protocol#atWake}'s decision, taken under the timer's monitor
 * and carried out after it, on the timer thread.
 *
 * <p>The clock's task is moved only to come sooner, never cancelled when the last lease leaves: a task that comes too
 * early or finds no lease sets the next one, or none, and holds no lease. Cancelling it at each release and setting it
 * again at the next acquire woke the timer thread twice a cycle, which cost more processor time than the rest of the
 * library's own work on an acquire and a release together (docs/benchmarks.md, section 11).
 */
final class LeaseTimer {

    /** What the keeper does for a lease that woke; both run on the timer thread and must not block. */
    interface Wakes {
        /** The lease's renewal is due (it was due at {@code dueNanos}). */
        void renew(Lease lease, long dueNanos);

        /** The lease reached its expiry watch without a renewal that moved its end. */
        void expire(Lease lease);
    }

    private static final int INITIAL_CAPACITY = 16;

    private final LockClock clock;
    private final Wakes wakes;
    private Lease[] queue = new Lease[INITIAL_CAPACITY]; // a binary heap by LeaseState.wakeNanos; guarded by this
    private int size; // guarded by this
    private @Nullable Future<?> task; // the clock's task for the earliest wake; guarded by this
    private long taskAtNanos; // guarded by this
    private long taskGeneration; // guarded by this
    private boolean closed; // guarded by this

    LeaseTimer(LockClock clock, Wakes wakes) {
        this.clock = clock;
        this.wakes = wakes;
    }

    /**
     * Starts keeping a lease, before the keeper announces it: it wakes no sooner than a whole lease from now, so that
     * nothing happens to it before {@link #renewAt} sets its first renewal after the announcement.
     */
    synchronized void add(Lease lease) {
        lease.state().renewing = true;
        place(lease, clock.nanoTime() + lease.durationNanos());
        arm();
    }

    /**
     * The lease's next renewal is due at {@code dueNanos}: after its announcement, and after each renewal that came
     * to an end leaving it live. It wakes then, or at its expiry watch if that is sooner. Nothing happens to a lease
     * that ended meanwhile.
     */
    synchronized void renewAt(Lease lease, long dueNanos) {
        if (!lease.isLive()) {
            return;
        }
        lease.state().renewing = false;
        place(lease, earlier(dueNanos, watch(lease)));
        arm();
    }

    /** Stops keeping a lease (it ended); the clock's task stays, and finds one lease fewer. */
    synchronized void remove(Lease lease) {
        int i = lease.state().timerIndex;
        if (i < 0 || i >= size || queue[i] != lease) {
            return;
        }
        removeAt(i);
        shrink();
    }

    /**
     * Stops for good, for the table's close once its leases have ended: the clock's task is cancelled, and none is
     * set again (a lease that a racing acquire adds meanwhile is ended by that acquire), so nothing of the table stays
     * scheduled after its close.
     */
    synchronized void close() {
        closed = true;
        cancelTask();
    }

    /** The leases kept now. */
    synchronized List<Lease> leases() {
        return new ArrayList<>(Arrays.asList(queue).subList(0, size));
    }

    private static long watch(Lease lease) {
        return Protocol.expiryWatch(lease.state().endNanos(), lease.durationNanos());
    }

    private static long earlier(long a, long b) {
        return a - b <= 0 ? a : b; // a difference: nanoTime may wrap
    }

    /** Puts a live lease in the queue at a new wake, or moves it there; the caller then {@link #arm()}s. */
    private void place(Lease lease, long wakeNanos) {
        if (!lease.isLive()) {
            return; // ended while its renewal ran: the end took it off already
        }
        LeaseState state = lease.state();
        int i = state.timerIndex;
        if (i >= 0 && i < size && queue[i] == lease) {
            long before = state.wakeNanos;
            state.wakeNanos = wakeNanos;
            if (wakeNanos - before < 0) {
                siftUp(i);
            } else {
                siftDown(i);
            }
        } else {
            if (size == queue.length) {
                queue = Arrays.copyOf(queue, size * 2);
            }
            state.wakeNanos = wakeNanos;
            queue[size] = lease;
            state.timerIndex = size;
            size++;
            siftUp(size - 1);
        }
    }

    /** Makes sure the clock's task comes no later than the earliest wake. */
    private void arm() {
        if (size == 0 || closed) {
            return;
        }
        long earliest = queue[0].state().wakeNanos;
        if (task != null && taskAtNanos - earliest <= 0) {
            return; // it comes first anyway, and sets the next one
        }
        cancelTask();
        long generation = ++taskGeneration;
        taskAtNanos = earliest;
        task = clock.schedule(() -> fire(generation), earliest - clock.nanoTime());
    }

    private void cancelTask() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    /** The clock's task: every lease whose wake came is decided on, then the next task is set. */
    private void fire(long generation) {
        List<Lease> renew = null;
        long[] due = null;
        List<Lease> expire = null;
        synchronized (this) {
            if (generation == taskGeneration) {
                task = null; // this one ran
            }
            long now = clock.nanoTime();
            while (size > 0 && queue[0].state().wakeNanos - now <= 0) {
                Lease lease = queue[0];
                long watch = watch(lease);
                Protocol.Wake wake = Protocol.atWake(now, watch, lease.isLive(), lease.state().renewing);
                if (wake == Protocol.Wake.EXPIRE) {
                    removeAt(0);
                    if (expire == null) {
                        expire = new ArrayList<>();
                    }
                    expire.add(lease);
                } else if (wake == Protocol.Wake.WATCH) {
                    place(lease, watch); // a renewal moved the end on, and its outcome sets the next wake
                } else {
                    if (renew == null) {
                        renew = new ArrayList<>();
                        due = new long[4];
                    }
                    if (renew.size() == due.length) {
                        due = Arrays.copyOf(due, due.length * 2);
                    }
                    due[renew.size()] = lease.state().wakeNanos;
                    renew.add(lease);
                    lease.state().renewing = true;
                    place(lease, watch);
                }
            }
            shrink();
            arm();
        }
        if (expire != null) {
            for (Lease lease : expire) {
                wakes.expire(lease);
            }
        }
        if (renew != null) {
            for (int i = 0; i < renew.size(); i++) {
                wakes.renew(renew.get(i), due[i]);
            }
        }
    }

    private void removeAt(int i) {
        Lease removed = queue[i];
        removed.state().timerIndex = -1;
        size--;
        if (i == size) {
            queue[size] = null;
            return;
        }
        Lease last = queue[size];
        queue[size] = null;
        queue[i] = last;
        last.state().timerIndex = i;
        siftDown(i);
        if (queue[i] == last) {
            siftUp(i);
        }
    }

    private void shrink() {
        if (queue.length > INITIAL_CAPACITY && size < queue.length / 4) {
            queue = Arrays.copyOf(queue, Math.max(INITIAL_CAPACITY, queue.length / 2));
        }
    }

    private void siftUp(int i) {
        Lease lease = queue[i];
        long wake = lease.state().wakeNanos;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Lease above = queue[parent];
            if (wake - above.state().wakeNanos >= 0) {
                break;
            }
            queue[i] = above;
            above.state().timerIndex = i;
            i = parent;
        }
        queue[i] = lease;
        lease.state().timerIndex = i;
    }

    private void siftDown(int i) {
        Lease lease = queue[i];
        long wake = lease.state().wakeNanos;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && queue[right].state().wakeNanos - queue[child].state().wakeNanos < 0) {
                child = right;
            }
            Lease below = queue[child];
            if (wake - below.state().wakeNanos <= 0) {
                break;
            }
            queue[i] = below;
            below.state().timerIndex = i;
            i = child;
        }
        queue[i] = lease;
        lease.state().timerIndex = i;
    }
}
