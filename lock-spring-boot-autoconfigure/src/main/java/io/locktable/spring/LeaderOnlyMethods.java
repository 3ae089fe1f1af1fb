package io.locktable.spring;

import io.locktable.LockTable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/** Reads the {@link LeaderOnly} of a method: its name and lease, placeholders resolved, checked once and cached. */
final class LeaderOnlyMethods {

    /** A method's leadership. */
    record Target(String name, Duration leaseDuration, String method) {}

    private static final String KOTLIN_CONTINUATION = "kotlin.coroutines.Continuation";
    private static final Set<String> REACTIVE_TYPES = Set.of(
            "reactor.core.publisher.Mono",
            "reactor.core.publisher.Flux",
            "org.reactivestreams.Publisher",
            "java.util.concurrent.Flow$Publisher",
            "kotlinx.coroutines.flow.Flow",
            "io.reactivex.rxjava3.core.Completable",
            "io.reactivex.rxjava3.core.Maybe",
            "io.reactivex.rxjava3.core.Observable",
            "io.reactivex.rxjava3.core.Single");

    private final Supplier<Duration> defaultLeaseDuration;
    private final Map<MethodClassKey, Target> cache = new ConcurrentHashMap<>();
    private volatile Environment environment;

    LeaderOnlyMethods(Supplier<Duration> defaultLeaseDuration) {
        this.defaultLeaseDuration = defaultLeaseDuration;
    }

    void environment(Environment environment) {
        this.environment = environment;
    }

    /**
     * The {@link LeaderOnly} of a method: declared on it, on a method it overrides, or as a meta-annotation of a
     * composed annotation (with its {@code @AliasFor} attributes merged); null when there is none. Its attributes
     * are read from the merged annotation, never from a synthesized proxy, which a native image would need a hint
     * for.
     */
    static MergedAnnotation<LeaderOnly> find(Method method) {
        MergedAnnotation<LeaderOnly> annotation = MergedAnnotations.from(
                        method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                .get(LeaderOnly.class);
        return annotation.isPresent() ? annotation : null;
    }

    /**
     * The leadership of a method called on a target class.
     *
     * @throws LeaderOnlyDeclarationException if the method cannot work as declared
     */
    Target resolve(Method method, Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass == null ? method.getDeclaringClass() : targetClass);
        return cache.computeIfAbsent(new MethodClassKey(method, userClass), key -> compute(method, userClass));
    }

    private Target compute(Method method, Class<?> userClass) {
        Method specific = ClassUtils.getMostSpecificMethod(method, userClass);
        MergedAnnotation<LeaderOnly> annotation = find(specific);
        if (annotation == null) {
            annotation = find(method);
        }
        String where = userClass.getName() + "." + method.getName() + "()";
        if (annotation == null) {
            throw new IllegalStateException(where + " has no @LeaderOnly");
        }
        checkSignature(specific, where);
        return new Target(name(annotation, where), leaseDuration(annotation, where), where);
    }

    private static void checkSignature(Method method, String where) {
        Class<?> type = method.getReturnType();
        if (type.isPrimitive() && type != void.class) {
            throw new LeaderOnlyDeclarationException(
                    "@LeaderOnly method " + where + " returns the primitive " + type.getName()
                            + ": a call skipped on an instance that does not lead has no value to return.",
                    "Declare it to return void, a wrapper type such as "
                            + ClassUtils.resolvePrimitiveIfNecessary(type).getSimpleName()
                            + " (null when skipped) or an Optional (empty when skipped).");
        }
        String deferred = deferred(method);
        if (deferred != null) {
            throw new LeaderOnlyDeclarationException(
                    "@LeaderOnly method " + where + " " + deferred + ": the leadership is checked and the lease bound"
                            + " only while the method runs, but its work runs after it returned, when this instance"
                            + " may no longer lead; and a skipped call would return null where a caller awaits a"
                            + " result.",
                    "Declare it to return void, a value or an Optional and do the work before it returns (block on"
                            + " it), or take a lock for the work itself with LockTable.tryAcquire and release it when"
                            + " the work completes.");
        }
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new LeaderOnlyDeclarationException(
                    "@LeaderOnly method " + where + " is "
                            + Modifier.toString(modifiers & (Modifier.PRIVATE | Modifier.STATIC | Modifier.FINAL))
                            + ": the proxy that checks the leadership cannot intercept it, so it would run on"
                            + " every instance.",
                    "Make it a public, non-final instance method of the bean, called through the bean.");
        }
    }

    /**
     * How a method hands its work to later, or null when it does not: a Kotlin suspend function, or a return type
     * that completes later (a future, a completion stage, a reactive type). Optional libraries are told by name,
     * so none of them needs to be on the class path.
     */
    static String deferred(Method method) {
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals(KOTLIN_CONTINUATION)) {
            return "is a Kotlin suspend function";
        }
        Class<?> type = method.getReturnType();
        if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)) {
            return "returns " + type.getName();
        }
        for (Class<?> supertype = type; supertype != null; supertype = supertype.getSuperclass()) {
            if (REACTIVE_TYPES.contains(supertype.getName())) {
                return "returns the reactive type " + type.getName();
            }
        }
        for (Class<?> implemented : ClassUtils.getAllInterfacesForClassAsSet(type)) {
            if (REACTIVE_TYPES.contains(implemented.getName())) {
                return "returns the reactive type " + type.getName();
            }
        }
        if (type != Object.class && ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null) {
            return "returns the reactive type " + type.getName();
        }
        return null;
    }

    private String name(MergedAnnotation<LeaderOnly> annotation, String where) {
        String declared = annotation.getString("name");
        String name;
        if (declared.isEmpty()) {
            name = environment().getProperty("spring.application.name", "");
            if (name.isBlank()) {
                throw new LeaderOnlyDeclarationException(
                        "@LeaderOnly method " + where + " names no leadership, and spring.application.name, which"
                                + " names it by default, is not set.",
                        "Name the leadership, for example @LeaderOnly(\"order-sweeper\"), or set"
                                + " spring.application.name.");
            }
        } else {
            name = resolve(declared, where, "name");
            if (name.isBlank()) {
                throw new LeaderOnlyDeclarationException(
                        "@LeaderOnly method " + where + " has the name '" + declared + "', which is empty once"
                                + " resolved.",
                        "Give the leadership a name, or set the property it refers to.");
            }
        }
        return name.trim();
    }

    private Duration leaseDuration(MergedAnnotation<LeaderOnly> annotation, String where) {
        String declared = annotation.getString("leaseDuration");
        if (declared.isEmpty()) {
            return defaultLeaseDuration.get();
        }
        String resolved = resolve(declared, where, "leaseDuration").trim();
        Duration duration;
        try {
            duration = DurationStyle.detectAndParse(resolved);
        } catch (IllegalArgumentException e) {
            throw new LeaderOnlyDeclarationException(
                    "@LeaderOnly method " + where + " has leaseDuration '" + declared + "', which is not a duration.",
                    "Write it like \"30s\", \"2m\" or \"PT30S\".",
                    e);
        }
        if (duration.compareTo(LockTable.MIN_LEASE_DURATION) < 0
                || duration.compareTo(LockTable.MAX_LEASE_DURATION) > 0) {
            String range = simple(LockTable.MIN_LEASE_DURATION) + " to " + simple(LockTable.MAX_LEASE_DURATION);
            throw new LeaderOnlyDeclarationException(
                    "@LeaderOnly method " + where + " has leaseDuration " + resolved
                            + ", outside the range a lease may have, " + range + ".",
                    "Give it a lease from " + range
                            + ", such as \"30s\", or leave it empty for locktable.lease-duration.");
        }
        return duration;
    }

    /** A duration as an annotation would say it: 30s, 1d, 500ms. */
    private static String simple(Duration duration) {
        for (ChronoUnit unit : new ChronoUnit[] {ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES}) {
            if (duration.toMillis() % unit.getDuration().toMillis() == 0) {
                return DurationStyle.SIMPLE.print(duration, unit);
            }
        }
        return duration.toMillis() % 1000 == 0
                ? DurationStyle.SIMPLE.print(duration, ChronoUnit.SECONDS)
                : DurationStyle.SIMPLE.print(duration, ChronoUnit.MILLIS);
    }

    private String resolve(String value, String where, String attribute) {
        try {
            return environment().resolveRequiredPlaceholders(value);
        } catch (IllegalArgumentException e) {
            throw new LeaderOnlyDeclarationException(
                    "@LeaderOnly method " + where + " has " + attribute + " '" + value + "', whose placeholder does"
                            + " not resolve: " + e.getMessage(),
                    "Set the property it refers to, or give it a default like ${app.lock:order-sweeper}.",
                    e);
        }
    }

    private Environment environment() {
        Environment current = environment;
        if (current == null) {
            throw new IllegalStateException("LeaderOnlyAdvisor has no Environment: it must be a bean of the context");
        }
        return current;
    }
}
