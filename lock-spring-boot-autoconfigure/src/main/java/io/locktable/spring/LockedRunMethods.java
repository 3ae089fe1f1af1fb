package io.locktable.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.core.annotation.MergedAnnotation;

/**
 * Reads the {@link LockedRun} of a method: its lock name, lease, minimum hold and whether a loss interrupts it,
 * placeholders resolved, checked once and cached.
 */
final class LockedRunMethods extends AnnotatedMethods<LockedRun, LockedRunMethods.Target> {

    /**
     * A method's lock.
     *
     * @param name the lock
     * @param leaseDuration the lease of each run
     * @param minHold how long a run keeps the lock at least, zero for none
     * @param interruptOnLoss whether a loss interrupts the run's thread
     * @param method the method, for messages
     */
    record Target(String name, Duration leaseDuration, Duration minHold, boolean interruptOnLoss, String method) {}

    private final Supplier<Duration> defaultLeaseDuration;

    LockedRunMethods(Supplier<Duration> defaultLeaseDuration) {
        super(LockedRun.class);
        this.defaultLeaseDuration = defaultLeaseDuration;
    }

    static MergedAnnotation<LockedRun> find(Method method) {
        return find(method, LockedRun.class);
    }

    @Override
    Target read(MergedAnnotation<LockedRun> annotation, Method method, Class<?> userClass, String where) {
        String declared = declaredName(annotation, where, "lock");
        String name = declared != null ? declared : userClass.getSimpleName() + "." + method.getName();
        return new Target(
                name,
                leaseDuration(annotation, where, defaultLeaseDuration.get()),
                minHold(annotation, where),
                annotation.getBoolean("interruptOnLoss"),
                where);
    }

    private Duration minHold(MergedAnnotation<LockedRun> annotation, String where) {
        String declared = annotation.getString("minHold");
        if (declared.isBlank()) {
            return Duration.ZERO;
        }
        Duration minHold = duration(declared, where, "minHold");
        if (minHold.isNegative()) {
            throw new MethodDeclarationException(
                    label + " method " + where + " has minHold " + declared + ", which is negative.",
                    "Give it zero or a positive duration, such as \"30s\", or leave it empty for none.");
        }
        return minHold;
    }

    @Override
    String skippedCall() {
        return "call skipped because another instance holds the lock";
    }

    @Override
    String boundWhile() {
        return "the lock is held and the lease bound";
    }

    @Override
    String noLongerHeld() {
        return "the lock may have been released already";
    }

    @Override
    String checkedBy() {
        return "takes the lock";
    }
}
