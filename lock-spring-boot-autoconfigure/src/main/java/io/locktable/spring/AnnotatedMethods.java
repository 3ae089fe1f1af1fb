package io.locktable.spring;

import io.locktable.LockTable;
import io.locktable.LockTableNames;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.scope.ScopedObject;
import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Reads the declarations of one of the starter's method annotations ({@link LeaderOnly}, {@link LockedRun}): finds
 * the annotation (composed ones included), checks what every such method must be (a return type a skipped call can
 * return, work done before it returns, a method the proxy can intercept, not both annotations), resolves
 * placeholders and durations, and caches what it read per method and target class. Each annotation's own attributes
 * are read by a subclass.
 *
 * @param <A> the annotation
 * @param <T> what a method's declaration resolves to
 */
abstract class AnnotatedMethods<A extends Annotation, T> {

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
    /** The starter's annotations: a method may carry one of them only. */
    private static final Set<Class<? extends Annotation>> ANNOTATIONS = Set.of(LeaderOnly.class, LockedRun.class);

    private final Class<A> type;
    /** How messages name the annotation: {@code @LeaderOnly}. */
    final String label;

    private final Map<MethodClassKey, T> cache = new ConcurrentHashMap<>();
    /** The classes whose annotated methods the proxy can all intercept. */
    private final Set<Class<?>> interceptable = ConcurrentHashMap.newKeySet();

    private volatile @Nullable Environment environment;

    AnnotatedMethods(Class<A> type) {
        this.type = type;
        this.label = "@" + type.getSimpleName();
    }

    void environment(Environment environment) {
        this.environment = environment;
    }

    /** What a method's annotation resolves to, its placeholders resolved; called once per method and class. */
    abstract T read(MergedAnnotation<A> annotation, Method method, Class<?> userClass, String where);

    /**
     * The annotation of a method: declared on it, on a method it overrides, or as a meta-annotation of a composed
     * annotation (with its {@code @AliasFor} attributes merged); null when there is none. Its attributes are read
     * from the merged annotation, never from a synthesized proxy, which a native image would need a hint for.
     */
    static <A extends Annotation> MergedAnnotation<A> find(Method method, Class<A> type) {
        MergedAnnotation<A> annotation = MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                .get(type);
        return annotation.isPresent() ? annotation : null;
    }

    /** The methods of a class that carry the annotation, with it. */
    Map<Method, MergedAnnotation<A>> annotated(Class<?> userClass) {
        return MethodIntrospector.selectMethods(
                userClass, (MethodIntrospector.MetadataLookup<MergedAnnotation<A>>) method -> find(method, type));
    }

    /**
     * Reads and checks the annotated methods of every bean of a factory, in the order of the bean definitions.
     *
     * @throws MethodDeclarationException for the first method that cannot work as declared
     */
    void scan(ConfigurableListableBeanFactory factory, Consumer<T> each) {
        for (String beanName : factory.getBeanDefinitionNames()) {
            Class<?> beanType = targetClass(factory, beanName);
            if (beanType == null) {
                continue; // a type that cannot be told: met at its first call
            }
            Class<?> userClass = ClassUtils.getUserClass(beanType);
            for (Method method : annotated(userClass).keySet()) {
                each.accept(resolve(method, userClass));
            }
        }
    }

    /**
     * The class of a bean behind its proxy, whether interface-based or class-based (as Spring's own
     * {@code @EventListener} scan finds it); null when it cannot be told.
     */
    private static @Nullable Class<?> targetClass(ConfigurableListableBeanFactory factory, String beanName) {
        if (ScopedProxyUtils.isScopedTarget(beanName)) {
            return null; // scanned through its scoped proxy's bean
        }
        try {
            Class<?> type = AutoProxyUtils.determineTargetClass(factory, beanName);
            if (type != null && ScopedObject.class.isAssignableFrom(type)) {
                Class<?> scoped =
                        AutoProxyUtils.determineTargetClass(factory, ScopedProxyUtils.getTargetBeanName(beanName));
                type = scoped != null ? scoped : type;
            }
            return type;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /**
     * The declaration of a method called on a target class.
     *
     * @throws MethodDeclarationException if the method cannot work as declared
     */
    T resolve(Method method, Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass == null ? method.getDeclaringClass() : targetClass);
        return cache.computeIfAbsent(new MethodClassKey(method, userClass), key -> compute(method, userClass));
    }

    private T compute(Method method, Class<?> userClass) {
        Method specific = ClassUtils.getMostSpecificMethod(method, userClass);
        MergedAnnotation<A> annotation = find(specific, type);
        if (annotation == null) {
            annotation = find(method, type);
        }
        String where = userClass.getName() + "." + method.getName() + "()";
        if (annotation == null) {
            throw new IllegalStateException(where + " has no " + label);
        }
        checkOneAnnotation(specific, where);
        checkSignature(specific, where);
        return read(annotation, specific, userClass, where);
    }

    private void checkOneAnnotation(Method method, String where) {
        for (Class<? extends Annotation> other : ANNOTATIONS) {
            if (other != type && find(method, other) != null) {
                throw new MethodDeclarationException(
                        "Method " + where + " carries both " + label + " and @" + other.getSimpleName()
                                + ": a call would need both this instance's leadership and a lock of its own.",
                        "Keep one: @LeaderOnly to run it on the leader of the cluster, @LockedRun to run each call"
                                + " under a lock of its own on whichever instance takes it.");
            }
        }
    }

    private void checkSignature(Method method, String where) {
        Class<?> returned = method.getReturnType();
        if (returned.isPrimitive() && returned != void.class) {
            throw new MethodDeclarationException(
                    label + " method " + where + " returns the primitive " + returned.getName() + ": a " + skippedCall()
                            + " has no value to return.",
                    "Declare it to return void, a wrapper type such as "
                            + ClassUtils.resolvePrimitiveIfNecessary(returned).getSimpleName()
                            + " (null when skipped) or an Optional (empty when skipped).");
        }
        String deferred = deferred(method);
        if (deferred != null) {
            throw new MethodDeclarationException(
                    label + " method " + where + " " + deferred + ": " + boundWhile() + " only while the method"
                            + " runs, but its work runs after it returned, when " + noLongerHeld() + "; and a skipped"
                            + " call would return null where a caller awaits a result.",
                    "Declare it to return void, a value or an Optional and do the work before it returns (block on"
                            + " it), or take a lock for the work itself with LockTable.tryAcquire and release it when"
                            + " the work completes.");
        }
        checkInterceptable(method, where);
    }

    /**
     * Checks that the proxy can intercept every annotated method of a class, once per class; called by the advisor's
     * pointcut when the auto-proxy creator looks at a bean, so before any other post-processor (such as {@code
     * @Scheduled}'s, which would refuse a private method found on a proxy in words of its own) sees the bean.
     *
     * @throws MethodDeclarationException for a private, static or final method
     */
    void checkInterceptable(Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        if (interceptable.contains(userClass)) {
            return;
        }
        for (Method method : annotated(userClass).keySet()) {
            checkInterceptable(method, userClass.getName() + "." + method.getName() + "()");
        }
        interceptable.add(userClass);
    }

    /**
     * A class-based proxy intercepts public, protected and package-private methods that are not final; an
     * interface-based one the methods of the bean's interfaces.
     */
    private void checkInterceptable(Method method, String where) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new MethodDeclarationException(
                    label + " method " + where + " is "
                            + Modifier.toString(modifiers & (Modifier.PRIVATE | Modifier.STATIC | Modifier.FINAL))
                            + ": the proxy that " + checkedBy() + " cannot intercept it, so it would run on every"
                            + " instance.",
                    "Make it a public, protected or package-private instance method of the bean that is not final,"
                            + " called through the bean.");
        }
    }

    /** How the messages call a call that does not run: "call skipped on an instance that does not lead". */
    abstract String skippedCall();

    /** What holds only while the method runs: "the leadership is checked and the lease bound". */
    abstract String boundWhile();

    /** What may have changed after the method returned: "this instance may no longer lead". */
    abstract String noLongerHeld();

    /** What the proxy does: "checks the leadership". */
    abstract String checkedBy();

    /**
     * How a method hands its work to later, or null when it does not: a Kotlin suspend function, or a return type
     * that completes later (a future, a completion stage, a reactive type). Optional libraries are told by name,
     * so none of them needs to be on the class path.
     */
    static @Nullable String deferred(Method method) {
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

    /** A name attribute with its placeholders resolved, checked not to be empty; null when not declared. */
    @Nullable
    String declaredName(MergedAnnotation<A> annotation, String where, String what) {
        String declared = annotation.getString("name");
        if (declared.isEmpty()) {
            return null;
        }
        String name = placeholders(declared, where, "name");
        if (name.isBlank()) {
            throw new MethodDeclarationException(
                    label + " method " + where + " has the name '" + declared + "', which is empty once resolved.",
                    "Give the " + what + " a name, or set the property it refers to.");
        }
        try {
            return LockTableNames.checkLockName(name.trim());
        } catch (IllegalArgumentException e) {
            throw new MethodDeclarationException(
                    label + " method " + where + " has a name that cannot be a lock's: " + e.getMessage() + ".",
                    "Give the " + what + " a shorter name.");
        }
    }

    /** The lease of a method: its {@code leaseDuration}, or the default when empty; checked against the range. */
    Duration leaseDuration(MergedAnnotation<A> annotation, String where, Duration defaultLease) {
        String declared = annotation.getString("leaseDuration");
        if (declared.isEmpty()) {
            return defaultLease;
        }
        Duration duration = duration(declared, where, "leaseDuration");
        if (!LockTable.isLeaseDuration(duration)) {
            String range = simple(LockTable.MIN_LEASE_DURATION) + " to " + simple(LockTable.MAX_LEASE_DURATION);
            throw new MethodDeclarationException(
                    label + " method " + where + " has leaseDuration " + simple(duration)
                            + ", outside the range a lease may have, " + range + ".",
                    "Give it a lease from " + range
                            + ", such as \"30s\", or leave it empty for locktable.lease-duration.");
        }
        return duration;
    }

    /** A duration attribute, placeholders resolved, in any of Spring Boot's styles. */
    Duration duration(String declared, String where, String attribute) {
        String resolved = placeholders(declared, where, attribute).trim();
        try {
            return DurationStyle.detectAndParse(resolved);
        } catch (IllegalArgumentException e) {
            throw new MethodDeclarationException(
                    label + " method " + where + " has " + attribute + " '" + declared + "', which is not a duration.",
                    "Write it like \"30s\", \"2m\" or \"PT30S\".",
                    e);
        }
    }

    /** A duration as an annotation would say it: 30s, 1d, 500ms. */
    static String simple(Duration duration) {
        for (ChronoUnit unit : new ChronoUnit[] {ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES}) {
            if (duration.toMillis() % unit.getDuration().toMillis() == 0 && !duration.isZero()) {
                return DurationStyle.SIMPLE.print(duration, unit);
            }
        }
        return duration.toMillis() % 1000 == 0
                ? DurationStyle.SIMPLE.print(duration, ChronoUnit.SECONDS)
                : DurationStyle.SIMPLE.print(duration, ChronoUnit.MILLIS);
    }

    /** An attribute with its placeholders resolved against the environment. */
    String placeholders(String value, String where, String attribute) {
        try {
            return environment().resolveRequiredPlaceholders(value);
        } catch (IllegalArgumentException e) {
            throw new MethodDeclarationException(
                    label + " method " + where + " has " + attribute + " '" + value + "', whose placeholder does"
                            + " not resolve: " + e.getMessage(),
                    "Set the property it refers to, or give it a default like ${app.lock:order-sweeper}.",
                    e);
        }
    }

    Environment environment() {
        Environment current = environment;
        if (current == null) {
            throw new IllegalStateException(
                    "The " + label + " advisor has no Environment: it must be a bean of the" + " context");
        }
        return current;
    }
}
