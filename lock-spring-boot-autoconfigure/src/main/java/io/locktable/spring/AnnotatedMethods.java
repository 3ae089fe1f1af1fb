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
import java.util.function.Supplier;
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
 * Reads the declarations of the starter's method annotations, {@link LeaderOnly} and {@link LockedRun}: finds the
 * annotation (composed ones included), checks what every such method must be (a return type a skipped call can
 * return, work done before it returns or followed until it completes ({@link DeferredCalls}), a method the proxy can intercept, not both annotations), resolves
 * placeholders and durations, and caches what it read per method and target class.
 */
final class AnnotatedMethods {

    /** The starter's method annotations, and how the messages tell what each does. */
    enum Kind {
        LEADER_ONLY(
                LeaderOnly.class,
                "call skipped on an instance that does not lead",
                "the leadership is checked and the lease bound",
                "this instance may no longer lead",
                "checks the leadership"),
        LOCKED_RUN(
                LockedRun.class,
                "call skipped because another instance holds the lock",
                "the lock is held and the lease bound",
                "the lock may have been released already",
                "takes the lock");

        final Class<? extends Annotation> type;
        /** How messages name the annotation: {@code @LeaderOnly}. */
        final String label;

        private final String skippedCall;
        private final String boundWhile;
        private final String noLongerHeld;
        private final String checkedBy;

        Kind(
                Class<? extends Annotation> type,
                String skippedCall,
                String boundWhile,
                String noLongerHeld,
                String checkedBy) {
            this.type = type;
            this.label = "@" + type.getSimpleName();
            this.skippedCall = skippedCall;
            this.boundWhile = boundWhile;
            this.noLongerHeld = noLongerHeld;
            this.checkedBy = checkedBy;
        }
    }

    /**
     * A method's declaration.
     *
     * @param kind its annotation
     * @param name the leadership or the lock
     * @param leaseDuration the lease
     * @param minHold how long a run keeps the lock at least, zero for none (and for a leadership)
     * @param interruptOnLoss whether a loss interrupts a run's thread (false for a leadership)
     * @param method the method, for messages
     * @param template the parsed name of a {@code @LockedRun} whose name has {@code #{...}} parts (then {@code name}
     *     is that template), else null
     */
    record Declared(
            Kind kind,
            String name,
            Duration leaseDuration,
            Duration minHold,
            boolean interruptOnLoss,
            String method,
            @Nullable LockNameTemplate template) {

        /** The lock name of a call: the declared one, or the template evaluated against the call's arguments. */
        String lockName(@Nullable Object target, @Nullable Object[] arguments) {
            return template == null ? name : template.evaluate(target, arguments);
        }
    }

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
    private final Map<MethodClassKey, Declared> cache = new ConcurrentHashMap<>();
    /** The classes whose annotated methods the proxy can all intercept. */
    private final Set<Class<?>> interceptable = ConcurrentHashMap.newKeySet();

    private volatile @Nullable Environment environment;
    private volatile @Nullable ClassLoader classLoader = AnnotatedMethods.class.getClassLoader();

    AnnotatedMethods(Supplier<Duration> defaultLeaseDuration) {
        this.defaultLeaseDuration = defaultLeaseDuration;
    }

    void environment(Environment environment) {
        this.environment = environment;
    }

    void classLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    /**
     * The starter's annotation of a method: declared on it, on a method it overrides, or as a meta-annotation of a
     * composed annotation (with its {@code @AliasFor} attributes merged); null when there is none. Its attributes are
     * read from the merged annotation, never from a synthesized proxy, which a native image would need a hint for.
     */
    static @Nullable MergedAnnotation<?> find(Method method) {
        MergedAnnotation<?> leaderOnly = find(method, Kind.LEADER_ONLY);
        return leaderOnly != null ? leaderOnly : find(method, Kind.LOCKED_RUN);
    }

    private static @Nullable MergedAnnotation<?> find(Method method, Kind kind) {
        MergedAnnotation<?> annotation = MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                .get(kind.type);
        return annotation.isPresent() ? annotation : null;
    }

    /** The methods of a class that carry one of the annotations, with it. */
    static Map<Method, MergedAnnotation<?>> annotated(Class<?> userClass) {
        return MethodIntrospector.selectMethods(
                userClass, (MethodIntrospector.MetadataLookup<MergedAnnotation<?>>) AnnotatedMethods::find);
    }

    /**
     * Reads and checks the annotated methods of every bean of a factory, in the order of the bean definitions.
     *
     * @throws MethodDeclarationException for the first method that cannot work as declared
     */
    void scan(ConfigurableListableBeanFactory factory, Consumer<Declared> each) {
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
    Declared resolve(Method method, Class<?> targetClass) {
        Class<?> userClass = ClassUtils.getUserClass(targetClass == null ? method.getDeclaringClass() : targetClass);
        return cache.computeIfAbsent(new MethodClassKey(method, userClass), key -> compute(method, userClass));
    }

    private Declared compute(Method method, Class<?> userClass) {
        Method specific = ClassUtils.getMostSpecificMethod(method, userClass);
        String where = userClass.getName() + "." + method.getName() + "()";
        MergedAnnotation<?> leaderOnly = find(specific, Kind.LEADER_ONLY);
        MergedAnnotation<?> lockedRun = find(specific, Kind.LOCKED_RUN);
        if (leaderOnly != null && lockedRun != null) {
            throw new MethodDeclarationException(
                    "Method " + where + " carries both @LeaderOnly and @LockedRun: a call would need both this"
                            + " instance's leadership and a lock of its own.",
                    "Keep one: @LeaderOnly to run it on the leader of the cluster, @LockedRun to run each call"
                            + " under a lock of its own on whichever instance takes it.");
        }
        MergedAnnotation<?> annotation = leaderOnly != null ? leaderOnly : lockedRun != null ? lockedRun : find(method);
        if (annotation == null) {
            throw new IllegalStateException(where + " has neither @LeaderOnly nor @LockedRun");
        }
        Kind kind = annotation.getType() == LeaderOnly.class ? Kind.LEADER_ONLY : Kind.LOCKED_RUN;
        checkSignature(kind, specific, where);
        Duration leaseDuration = leaseDuration(kind, annotation, where);
        if (kind == Kind.LEADER_ONLY) {
            return new Declared(
                    kind, leadershipName(annotation, where), leaseDuration, Duration.ZERO, false, where, null);
        }
        String declared = declaredName(kind, annotation, where, "lock");
        String name = declared != null ? declared : userClass.getSimpleName() + "." + method.getName();
        LockNameTemplate template =
                LockNameTemplate.isTemplate(name) ? LockNameTemplate.parse(name, specific, where) : null;
        return new Declared(
                kind,
                name,
                leaseDuration,
                minHold(annotation, where),
                annotation.getBoolean("interruptOnLoss"),
                where,
                template);
    }

    /** The name of a leadership: the declared one, or {@code spring.application.name}. */
    private String leadershipName(MergedAnnotation<?> annotation, String where) {
        String declared = declaredName(Kind.LEADER_ONLY, annotation, where, "leadership");
        if (declared != null && LockNameTemplate.isTemplate(declared)) {
            throw new MethodDeclarationException(
                    "@LeaderOnly method " + where + " has the name '" + declared + "', with a #{...} expression: a"
                            + " leadership's name is fixed at startup (one election per name), it cannot be read"
                            + " from a call's arguments.",
                    "Give the leadership a fixed name (${...} placeholders resolve at startup), or use @LockedRun"
                            + " to take a lock per call named from the arguments, such as"
                            + " @LockedRun(\"report-#{#region}\").");
        }
        if (declared != null) {
            return declared;
        }
        String name = environment().getProperty("spring.application.name", "");
        if (name.isBlank()) {
            throw new MethodDeclarationException(
                    "@LeaderOnly method " + where + " names no leadership, and spring.application.name, which names"
                            + " it by default, is not set.",
                    "Name the leadership, for example @LeaderOnly(\"order-sweeper\"), or set"
                            + " spring.application.name.");
        }
        return name.trim();
    }

    private Duration minHold(MergedAnnotation<?> annotation, String where) {
        String declared = annotation.getString("minHold");
        if (declared.isBlank()) {
            return Duration.ZERO;
        }
        Duration minHold = duration(Kind.LOCKED_RUN, declared, where, "minHold");
        if (minHold.isNegative()) {
            throw new MethodDeclarationException(
                    "@LockedRun method " + where + " has minHold " + declared + ", which is negative.",
                    "Give it zero or a positive duration, such as \"30s\", or leave it empty for none.");
        }
        return minHold;
    }

    private void checkSignature(Kind kind, Method method, String where) {
        Class<?> returned = method.getReturnType();
        if (returned.isPrimitive() && returned != void.class) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " returns the primitive " + returned.getName() + ": a "
                            + kind.skippedCall + " has no value to return.",
                    "Declare it to return void, a wrapper type such as "
                            + ClassUtils.resolvePrimitiveIfNecessary(returned).getSimpleName()
                            + " (null when skipped) or an Optional (empty when skipped).");
        }
        String deferred = deferred(method);
        String missing = deferred == null ? null : DeferredCalls.missingLibrary(method, classLoader);
        if (deferred != null && DeferredCalls.shape(method) != null && missing != null) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " " + deferred + ", which needs " + missing + " on the class"
                            + " path for the " + (kind == Kind.LEADER_ONLY ? "leadership" : "lock") + " to be held"
                            + " until its work completes.",
                    "Add " + missing + " to the application, or declare the method to return void, a value or an"
                            + " Optional and do the work before it returns.");
        }
        if (deferred != null && DeferredCalls.shape(method) == null) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " " + deferred + ": " + kind.boundWhile + " only while the"
                            + " method runs, but its work runs after it returned, when " + kind.noLongerHeld
                            + "; and a skipped call would return null where a caller awaits a result.",
                    "Declare it to return void, a value or an Optional and do the work before it returns (block on"
                            + " it); or return a CompletableFuture or a CompletionStage, or, with Reactor on the class"
                            + " path, a Mono, a Flux or a Publisher, or make it a Kotlin suspend function (with"
                            + " kotlinx-coroutines-reactor), which are held until their work completes; or take a"
                            + " lock for the work itself with LockTable.tryAcquire and release it when the work"
                            + " completes.");
        }
        checkInterceptable(kind, method, where);
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
        annotated(userClass)
                .forEach((method, annotation) -> checkInterceptable(
                        annotation.getType() == LeaderOnly.class ? Kind.LEADER_ONLY : Kind.LOCKED_RUN,
                        method,
                        userClass.getName() + "." + method.getName() + "()"));
        interceptable.add(userClass);
    }

    /**
     * A class-based proxy intercepts public, protected and package-private methods that are not final; an
     * interface-based one the methods of the bean's interfaces.
     */
    private static void checkInterceptable(Kind kind, Method method, String where) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isStatic(modifiers) || Modifier.isFinal(modifiers)) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " is "
                            + Modifier.toString(modifiers & (Modifier.PRIVATE | Modifier.STATIC | Modifier.FINAL))
                            + ": the proxy that " + kind.checkedBy + " cannot intercept it, so it would run on every"
                            + " instance.",
                    "Make it a public, protected or package-private instance method of the bean that is not final,"
                            + " called through the bean.");
        }
    }

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
    private @Nullable String declaredName(Kind kind, MergedAnnotation<?> annotation, String where, String what) {
        String declared = annotation.getString("name");
        if (declared.isEmpty()) {
            return null;
        }
        String name = placeholders(kind, declared, where, "name");
        if (name.isBlank()) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " has the name '" + declared + "', which is empty once resolved.",
                    "Give the " + what + " a name, or set the property it refers to.");
        }
        try {
            return LockTableNames.checkLockName(name.trim());
        } catch (IllegalArgumentException e) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " has a name that cannot be a lock's: " + e.getMessage() + ".",
                    "Give the " + what + " a shorter name.");
        }
    }

    /** The lease of a method: its {@code leaseDuration}, or the default when empty; checked against the range. */
    private Duration leaseDuration(Kind kind, MergedAnnotation<?> annotation, String where) {
        String declared = annotation.getString("leaseDuration");
        if (declared.isEmpty()) {
            return defaultLeaseDuration.get();
        }
        Duration duration = duration(kind, declared, where, "leaseDuration");
        if (!LockTable.isLeaseDuration(duration)) {
            String range = simple(LockTable.MIN_LEASE_DURATION) + " to " + simple(LockTable.MAX_LEASE_DURATION);
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " has leaseDuration " + simple(duration)
                            + ", outside the range a lease may have, " + range + ".",
                    "Give it a lease from " + range
                            + ", such as \"30s\", or leave it empty for locktable.lease-duration.");
        }
        return duration;
    }

    /** A duration attribute, placeholders resolved, in any of Spring Boot's styles. */
    private Duration duration(Kind kind, String declared, String where, String attribute) {
        String resolved = placeholders(kind, declared, where, attribute).trim();
        try {
            return DurationStyle.detectAndParse(resolved);
        } catch (IllegalArgumentException e) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " has " + attribute + " '" + declared
                            + "', which is not a duration.",
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
    private String placeholders(Kind kind, String value, String where, String attribute) {
        try {
            return environment().resolveRequiredPlaceholders(value);
        } catch (IllegalArgumentException e) {
            throw new MethodDeclarationException(
                    kind.label + " method " + where + " has " + attribute + " '" + value + "', whose placeholder does"
                            + " not resolve: " + e.getMessage(),
                    "Set the property it refers to, or give it a default like ${app.lock:order-sweeper}.",
                    e);
        }
    }

    private Environment environment() {
        Environment current = environment;
        if (current == null) {
            throw new IllegalStateException(
                    "The lock annotation advisor has no Environment: it must be a bean of the" + " context");
        }
        return current;
    }
}
