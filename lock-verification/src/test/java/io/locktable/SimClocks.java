package io.locktable;

import java.lang.reflect.Field;
import java.util.Collection;
import java.util.concurrent.FutureTask;

/**
 * What a manual clock still has scheduled after its table closed. A retry of a give-back (an acquire whose answer was
 * lost) is let through: the system scheduler drops it at close, but a clock the caller owns is not closed by the table,
 * so it stays there, and sends its conditional give-back later, which can change nothing but that acquisition's item.
 */
final class SimClocks {

    private SimClocks() {}

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
}
