package io.locktable;

import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Hands a lock released by this table straight to its longest waiter of that name, which writes at once instead of
 * at its next poll. Each waiter has one future that a wake completes: a blocking waiter waits on it, one that holds
 * no thread is also called back; no monitor is held while anyone waits, and a release wakes one waiter of its name
 * only. {@link #closeAll()} wakes all.
 */
final class Handover {

    /** One waiting acquire. */
    static final class Waiter {
        private final String name;
        /** Completed by a wake; replaced by a new one when the waiter takes the wake ({@link #rejoin}). */
        private final AtomicReference<CompletableFuture<Void>> wake = new AtomicReference<>(new CompletableFuture<>());

        private final @Nullable Runnable onWake;
        private final boolean closeOnly; // hears the close, is never handed the lock

        private Waiter(String name, @Nullable Runnable onWake, boolean closeOnly) {
            this.name = name;
            this.onWake = onWake;
            this.closeOnly = closeOnly;
        }

        /**
         * Wakes the waiter unless a wake it has not taken yet is pending; one that holds no thread is called back.
         *
         * @return false if a wake was pending already
         */
        private boolean wake() {
            if (!wake.get().complete(null)) {
                return false;
            }
            callBack();
            return true;
        }

        /** The table closes: woken, and called back even if a wake is pending, so it ends now. */
        private void close() {
            wake.get().complete(null);
            callBack();
        }

        private void callBack() {
            if (onWake != null) {
                onWake.run();
            }
        }
    }

    private final ConcurrentMap<String, Deque<Waiter>> waiting = new ConcurrentHashMap<>();
    private volatile boolean closed;

    Waiter enlist(String name) {
        return enlist(name, null);
    }

    /**
     * @param onWake run on each wake by the releasing or closing thread (must not block); the permit stays for {@link
     *     #woken} or {@link #await}
     */
    Waiter enlist(String name, @Nullable Runnable onWake) {
        return enlist(new Waiter(name, onWake, false));
    }

    /** For one attempt that does not wait, queued on the workers: {@code onClose} runs when the table closes. */
    Waiter enlistForClose(String name, Runnable onClose) {
        return enlist(new Waiter(name, onClose, true));
    }

    private Waiter enlist(Waiter waiter) {
        String name = waiter.name;
        waiting.compute(name, (key, queue) -> {
            Deque<Waiter> line = queue == null ? new ConcurrentLinkedDeque<>() : queue;
            line.add(waiter);
            return line;
        });
        if (closed) {
            waiter.wake.get().complete(null); // its first attempt finds the table closed: no callback before it starts
        }
        return waiter;
    }

    void leave(Waiter waiter) {
        waiting.computeIfPresent(waiter.name, (key, queue) -> {
            queue.remove(waiter);
            return queue.isEmpty() ? null : queue;
        });
    }

    /** This table released the lock: the longest waiter of it that is not woken yet wakes. */
    void released(String name) {
        Deque<Waiter> queue = waiting.get(name);
        if (queue == null) {
            return;
        }
        for (Waiter waiter : queue) {
            if (!waiter.closeOnly && waiter.wake()) {
                return;
            }
        }
    }

    /** The table closes: every waiter wakes, and finds the table closed. */
    void closeAll() {
        closed = true;
        for (Deque<Waiter> queue : waiting.values()) {
            for (Waiter waiter : queue) {
                waiter.close();
            }
        }
    }

    /**
     * Sleeps up to {@code nanos} of real time, less if handed the lock or the table closes.
     *
     * @return true if it was woken
     */
    boolean await(Waiter waiter, long nanos) throws InterruptedException {
        CompletableFuture<Void> wake = waiter.wake.get();
        try {
            wake.get(nanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException notWoken) {
            return false;
        } catch (ExecutionException impossible) {
            throw new IllegalStateException(impossible); // a wake is only ever completed normally
        }
        rejoin(waiter, wake);
        return true;
    }

    /** Without waiting: whether it was woken since it last looked. */
    boolean woken(Waiter waiter) {
        CompletableFuture<Void> wake = waiter.wake.get();
        if (!wake.isDone()) {
            return false;
        }
        rejoin(waiter, wake);
        return true;
    }

    /** The waiter took the wake: the next one completes a new future, and it waits at the back of the line. */
    private void rejoin(Waiter waiter, CompletableFuture<Void> taken) {
        CompletableFuture<Void> next = new CompletableFuture<>();
        waiter.wake.compareAndSet(taken, next);
        if (closed) {
            next.complete(null); // the close may have completed the taken one only: it is heard at the next look
        }
        // to the back of the line: if another process took the lock, the next release wakes someone else first
        waiting.computeIfPresent(waiter.name, (key, queue) -> {
            if (queue.remove(waiter)) {
                queue.add(waiter);
            }
            return queue;
        });
    }
}
