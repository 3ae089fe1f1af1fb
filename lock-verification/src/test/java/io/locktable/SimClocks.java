package io.locktable;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.FutureTask;

/**
 * What a manual clock still has scheduled after its table closed, when its first task falls due, and which leases a
 * table has not ended yet. A retry of a give-back (an acquire whose answer was
 * lost) is let through: the system scheduler drops it at close, but a clock the caller owns is not closed by the table,
 * so it stays there, and sends its conditional give-back later, which can change nothing but that acquisition's item.
 */
final class SimClocks {

    private static final Field SCHEDULED = scheduledField();
    private static final java.lang.reflect.Method DUE = dueMethod();

    private SimClocks() {}

    /**
     * When the clock's first task falls due, on that clock; {@code fallback} when nothing is scheduled. The simulation
     * moves time to the earliest such moment of all processes, so tasks of different processes run in the order of
     * the simulation's time (read by reflection: ManualLockClock keeps its queue to itself).
     */
    static long nextDue(ManualLockClock clock, long fallback) {
        try {
            java.util.PriorityQueue<?> queue = (java.util.PriorityQueue<?>) SCHEDULED.get(clock);
            Object first = queue.peek(); // the simulation's one thread is the only one that touches the clock
            return first == null ? fallback : (long) DUE.invoke(first);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Field scheduledField() {
        try {
            Field field = ManualLockClock.class.getDeclaredField("scheduled");
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static java.lang.reflect.Method dueMethod() {
        try {
            Class<?> scheduled = Class.forName("io.locktable.ManualLockClock$Scheduled");
            java.lang.reflect.Method method = scheduled.getDeclaredMethod("dueNanos");
            method.setAccessible(true);
            return method;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static String pendingTasksOtherThanGiveBacks(ManualLockClock clock) {
        try {
            Field field = ManualLockClock.class.getDeclaredField("scheduled");
            field.setAccessible(true);
            StringBuilder out = new StringBuilder();
            for (Object scheduled : (Collection<?>) field.get(clock)) {
                FutureTask<?> task =
                        (FutureTask<?>) scheduled.getClass().getMethod("task").invoke(scheduled);
                if (!task.isCancelled() && !task.toString().contains("io.locktable.Acquirer$$Lambda")) {
                    out.append(task).append("; ");
                }
            }
            return out.toString();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "(could not read them: " + e + ")";
        }
    }

    private static final Field KEEPER = field(LockTable.class, "keeper");
    private static final Field TIMER = field(LeaseKeeper.class, "timer");

    /**
     * Every lease the table has not ended yet, held or not: one past its end whose expiry watch has not run (its timer
     * late) is among them, as {@link LockTable#heldLeases()} does not show it (read by reflection: the table keeps
     * them to itself).
     */
    static List<Lease> liveLeases(LockTable table) {
        try {
            return ((LeaseTimer) TIMER.get(KEEPER.get(table))).leases();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Field field(Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
