package io.locktable;

import io.micrometer.context.ThreadLocalAccessor;
import java.util.ArrayDeque;
import org.jspecify.annotations.Nullable;

/**
 * Carries {@link Lease#current()} across threads with Micrometer's context propagation (a context-aware executor,
 * {@code @Async}, Reactor with automatic propagation). Registered by {@code META-INF/services}: an application with
 * {@code io.micrometer:context-propagation} gets it without code. A lease carried over stays the same lease.
 *
 * <pre>{@code
 * ExecutorService executor = ContextExecutorService.wrap(Executors.newFixedThreadPool(4));
 * locks.runAsLeader("order-sweeper", lease, term -> executor.submit(() -> {
 *     Lease.current().orElseThrow().transactWrite(putOrder); // the term's lease, on the pool's thread
 * }).get());
 * }</pre>
 */
public final class LeaseThreadLocalAccessor implements ThreadLocalAccessor<Lease> {

    /** The key under which the lease travels in a context snapshot. */
    public static final String KEY = "io.locktable.lease";

    /** The bindings this accessor made on each thread, the newest last, so each restore undoes its own. */
    private static final ThreadLocal<@Nullable ArrayDeque<Lease.Binding>> MADE = new ThreadLocal<>();

    /** Made by the service loader of context propagation. */
    public LeaseThreadLocalAccessor() {}

    /** @return {@link #KEY} */
    @Override
    public Object key() {
        return KEY;
    }

    /** @return the lease bound on the calling thread, or null */
    @Override
    public @Nullable Lease getValue() {
        return Lease.current().orElse(null);
    }

    /**
     * Binds the captured lease on the thread the work runs on.
     *
     * @param value the lease
     */
    @Override
    public void setValue(Lease value) {
        made().addLast(value.bindAsCurrent());
    }

    /** The snapshot had no lease: none is current on this thread while the work runs. */
    @Override
    public void setValue() {
        made().addLast(Lease.bindNone());
    }

    /**
     * Undoes the binding made for the work, so what was current before is current again.
     *
     * @param previousValue what was current before
     */
    @Override
    public void restore(Lease previousValue) {
        undoLast();
    }

    /** Undoes the binding made for the work; no lease was current before it. */
    @Override
    public void restore() {
        undoLast();
    }

    private static ArrayDeque<Lease.Binding> made() {
        ArrayDeque<Lease.Binding> made = MADE.get();
        if (made == null) {
            made = new ArrayDeque<>(2);
            MADE.set(made);
        }
        return made;
    }

    private static void undoLast() {
        ArrayDeque<Lease.Binding> made = MADE.get();
        if (made == null) {
            return;
        }
        Lease.Binding last = made.pollLast();
        if (last != null) {
            last.close();
        }
        if (made.isEmpty()) {
            MADE.remove();
        }
    }
}
