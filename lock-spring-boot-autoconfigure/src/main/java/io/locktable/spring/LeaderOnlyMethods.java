package io.locktable.spring;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.core.annotation.MergedAnnotation;

/** Reads the {@link LeaderOnly} of a method: its name and lease, placeholders resolved, checked once and cached. */
final class LeaderOnlyMethods extends AnnotatedMethods<LeaderOnly, LeaderOnlyMethods.Target> {

    /** A method's leadership. */
    record Target(String name, Duration leaseDuration, String method) {}

    private final Supplier<Duration> defaultLeaseDuration;

    LeaderOnlyMethods(Supplier<Duration> defaultLeaseDuration) {
        super(LeaderOnly.class);
        this.defaultLeaseDuration = defaultLeaseDuration;
    }

    static MergedAnnotation<LeaderOnly> find(Method method) {
        return find(method, LeaderOnly.class);
    }

    @Override
    Target read(MergedAnnotation<LeaderOnly> annotation, Method method, Class<?> userClass, String where) {
        return new Target(name(annotation, where), leaseDuration(annotation, where, defaultLeaseDuration.get()), where);
    }

    private String name(MergedAnnotation<LeaderOnly> annotation, String where) {
        String declared = declaredName(annotation, where, "leadership");
        if (declared != null) {
            return declared;
        }
        String name = environment().getProperty("spring.application.name", "");
        if (name.isBlank()) {
            throw new MethodDeclarationException(
                    label + " method " + where + " names no leadership, and spring.application.name, which names it"
                            + " by default, is not set.",
                    "Name the leadership, for example @LeaderOnly(\"order-sweeper\"), or set"
                            + " spring.application.name.");
        }
        return name.trim();
    }

    @Override
    String skippedCall() {
        return "call skipped on an instance that does not lead";
    }

    @Override
    String boundWhile() {
        return "the leadership is checked and the lease bound";
    }

    @Override
    String noLongerHeld() {
        return "this instance may no longer lead";
    }

    @Override
    String checkedBy() {
        return "checks the leadership";
    }
}
