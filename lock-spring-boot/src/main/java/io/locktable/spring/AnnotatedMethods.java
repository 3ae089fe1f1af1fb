package io.locktable.spring;

import io.locktable.LockTable;
import io.locktable.LockTableNames;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.util.ClassUtils;

/**
 * Reads and checks the declarations of {@link LeaderOnly} and {@link LockedRun} methods (composed ones included, read
 * from the merged annotation, never a synthesized one a native image would need a hint for), cached per method and
 * target class. A declaration that cannot work throws a {@link MethodDeclarationException} naming the method.
 */
final class AnnotatedMethods {

    /** The two annotations; {@code label} is how messages name one. */
    enum Kind {
        LEADER_ONLY("@LeaderOnly"),
        LOCKED_RUN("@LockedRun");

        final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    /** A method's declaration: {@code method} names it for messages; {@code template} is null without #{...}. */
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

    /** Types whose work runs after the method returned, told by name: their library need not be present. */
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

    /** The context's, set by the advisor. */
    volatile Environment environment = new StandardEnvironment();
    /** The context's, which tells which optional libraries the application has. */
    volatile @Nullable ClassLoader classLoader = AnnotatedMethods.class.getClassLoader();

    AnnotatedMethods(Supplier<Duration> defaultLeaseDuration) {
        this.defaultLeaseDuration = defaultLeaseDuration;
    }

    /** The annotation of a method (on it, on a method it overrides, or composed), or null. */
    private static @Nullable MergedAnnotation<?> find(Method method) {
        MergedAnnotations all = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
        MergedAnnotation<?> found =
                all.isPresent(LeaderOnly.class) ? all.get(LeaderOnly.class) : all.get(LockedRun.class);
        return found.isPresent() ? found : null;
    }

    /** The methods of a class that carry one of the annotations, with it. */
    private static Map<Method, MergedAnnotation<?>> annotated(Class<?> type) {
        return MethodIntrospector.selectMethods(
                ClassUtils.getUserClass(type),
                (MethodIntrospector.MetadataLookup<MergedAnnotation<?>>) AnnotatedMethods::find);
    }

    /** Reads and checks the annotated methods of every bean of a factory, behind its proxy if any. */
    void scan(ConfigurableListableBeanFactory factory, Consumer<Declared> each) {
        for (String beanName : factory.getBeanDefinitionNames()) {
            Class<?> type;
            try {
                type = AutoProxyUtils.determineTargetClass(factory, beanName);
            } catch (RuntimeException e) {
                continue; // a type that cannot be told: read at its first call
            }
            if (type != null) {
                annotated(type).keySet().forEach(method -> each.accept(resolve(method, type)));
            }
        }
    }

    /** The advisor's class filter: asked for each bean before {@code @Scheduled} sees it, so refusals are ours. */
    boolean interceptable(Class<?> type) {
        Map<Method, MergedAnnotation<?>> found = annotated(type);
        found.forEach((method, annotation) -> new Reader(method, type, annotation).checkInterceptable());
        return !found.isEmpty();
    }

    /** The declaration of a method called on a target class. */
    Declared resolve(Method method, Class<?> targetClass) {
        Class<?> type = ClassUtils.getUserClass(targetClass);
        return cache.computeIfAbsent(new MethodClassKey(method, type), key -> {
            Method specific = AopUtils.getMostSpecificMethod(method, type);
            Reader reader = new Reader(specific, type, find(specific));
            reader.checkSignature();
            Duration lease = reader.leaseDuration();
            if (reader.kind == Kind.LEADER_ONLY) {
                return new Declared(
                        reader.kind,
                        reader.leadershipName(),
                        lease,
                        Duration.ZERO,
                        reader.annotation.getBoolean("interruptOnLoss"),
                        reader.where,
                        null);
            }
            String name = reader.name(type.getSimpleName() + "." + method.getName());
            return new Declared(
                    reader.kind,
                    name,
                    lease,
                    Objects.requireNonNullElse(reader.duration("minHold"), Duration.ZERO),
                    reader.annotation.getBoolean("interruptOnLoss"),
                    reader.where,
                    LockNameTemplate.isTemplate(name) ? LockNameTemplate.parse(name, specific, reader.where) : null);
        });
    }

    /** A duration as an annotation would say it: 1d, 30s, 500ms. */
    private static String simple(Duration duration) {
        for (ChronoUnit unit : List.of(ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES, ChronoUnit.SECONDS)) {
            if (!duration.isZero() && duration.toMillis() % unit.getDuration().toMillis() == 0) {
                return DurationStyle.SIMPLE.print(duration, unit);
            }
        }
        return DurationStyle.SIMPLE.print(duration, ChronoUnit.MILLIS);
    }

    private static boolean reactive(@Nullable Class<?> type) {
        return type != null
                && (REACTIVE_TYPES.contains(type.getName())
                        || reactive(type.getSuperclass())
                        || Arrays.stream(type.getInterfaces()).anyMatch(AnnotatedMethods::reactive));
    }

    /** Reads and checks one method's annotation; its failures name the method. */
    private final class Reader {
        final Method method;
        final Kind kind;
        final MergedAnnotation<?> annotation;
        final String where;
        /** The leadership or the lock, as messages say. */
        final String what;

        Reader(Method method, Class<?> type, @Nullable MergedAnnotation<?> annotation) {
            this.method = method;
            this.annotation = Objects.requireNonNull(annotation, "not annotated");
            this.kind = annotation.getType() == LeaderOnly.class ? Kind.LEADER_ONLY : Kind.LOCKED_RUN;
            this.where = ClassUtils.getUserClass(type).getName() + "." + method.getName() + "()";
            this.what = kind == Kind.LEADER_ONLY ? "leadership" : "lock";
        }

        MethodDeclarationException fail(String description, String action) {
            return fail(description, action, null);
        }

        MethodDeclarationException fail(String description, String action, @Nullable Throwable cause) {
            return new MethodDeclarationException(kind.label + " method " + where + " " + description, action, cause);
        }

        /** A class-based proxy intercepts the methods that are not private, static or final. */
        void checkInterceptable() {
            int modifiers = method.getModifiers() & (Modifier.PRIVATE | Modifier.STATIC | Modifier.FINAL);
            if (modifiers != 0) {
                throw fail(
                        "is " + Modifier.toString(modifiers) + ": the proxy that "
                                + (kind == Kind.LEADER_ONLY ? "checks the leadership" : "takes the lock")
                                + " cannot intercept it, so it would run on every instance.",
                        "Make it a public, protected or package-private instance method of the bean that is not"
                                + " final, called through the bean.");
            }
        }

        /** Refuses both annotations on one method, a return a skipped call cannot give, work the hold cannot follow. */
        void checkSignature() {
            MergedAnnotations all = MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY);
            if (all.isPresent(LeaderOnly.class) && all.isPresent(LockedRun.class)) {
                throw new MethodDeclarationException(
                        "Method " + where + " carries both @LeaderOnly and @LockedRun: a call would need both this"
                                + " instance's leadership and a lock of its own.",
                        "Keep one: @LeaderOnly to run it on the leader of the cluster, @LockedRun to run each call"
                                + " under a lock of its own on whichever instance takes it.");
            }
            Class<?> returned = method.getReturnType();
            if (returned.isPrimitive() && returned != void.class) {
                throw fail(
                        "returns the primitive " + returned.getName() + ": a call skipped "
                                + (kind == Kind.LEADER_ONLY
                                        ? "on an instance that does not lead"
                                        : "because another instance holds the lock")
                                + " has no value to return.",
                        "Declare it to return void, a wrapper type such as "
                                + ClassUtils.resolvePrimitiveIfNecessary(returned)
                                        .getSimpleName()
                                + " (null when skipped) or an Optional (empty when skipped).");
            }
            String deferred = deferred();
            if (deferred != null && DeferredCalls.shape(method) == null) {
                throw fail(
                        deferred + ": the " + what + (kind == Kind.LEADER_ONLY ? " is checked" : " is held")
                                + " and the lease bound only while the method runs, but its work runs after"
                                + " it returned; and a skipped call would return null where a caller awaits a result.",
                        "Declare it to return void, a value or an Optional and do the work before it returns; or"
                                + " return a CompletableFuture, a CompletionStage or (with Reactor) a Mono, a Flux or"
                                + " a Publisher, or make it a Kotlin suspend function: these are held until their"
                                + " work completes.");
            }
            String missing = deferred == null ? null : DeferredCalls.missingLibrary(method, classLoader);
            if (missing != null) {
                throw fail(
                        deferred + ", which needs " + missing + " on the class path for the " + what
                                + " to be held until its work completes.",
                        "Add " + missing + " to the application, or declare the method to return void, a value or"
                                + " an Optional and do the work before it returns.");
            }
            checkInterceptable();
        }

        /** How the method hands its work to later (a suspend function, a future, a reactive type), or null. */
        private @Nullable String deferred() {
            Class<?>[] parameters = method.getParameterTypes();
            if (parameters.length > 0
                    && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
                return "is a Kotlin suspend function";
            }
            Class<?> type = method.getReturnType();
            if (CompletionStage.class.isAssignableFrom(type) || Future.class.isAssignableFrom(type)) {
                return "returns " + type.getName();
            }
            boolean adapted = type != Object.class
                    && ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null;
            return reactive(type) || adapted ? "returns the reactive type " + type.getName() : null;
        }

        /** The leadership's name, fixed at startup: the declared one, or {@code spring.application.name}. */
        String leadershipName() {
            String name =
                    name(environment.getProperty("spring.application.name", "").trim());
            if (LockNameTemplate.isTemplate(name)) {
                throw fail(
                        "has the name '" + name + "', with a #{...} expression: a leadership's name is fixed at"
                                + " startup (one election per name), it cannot be read from a call's arguments.",
                        "Give the leadership a fixed name (${...} placeholders resolve at startup), or use"
                                + " @LockedRun(\"report-#{#region}\") for a lock per call named from the arguments.");
            }
            if (name.isEmpty()) {
                throw fail(
                        "names no leadership, and spring.application.name, which names it by default, is not set.",
                        "Name the leadership, for example @LeaderOnly(\"order-sweeper\"), or set"
                                + " spring.application.name.");
            }
            return name;
        }

        /** The name attribute, placeholders resolved and checked as a lock name; the fallback when empty. */
        String name(String fallback) {
            String declared = annotation.getString("name");
            if (declared.isEmpty()) {
                return fallback;
            }
            try {
                return LockTableNames.checkLockName(resolved("name").trim());
            } catch (IllegalArgumentException e) {
                throw fail(
                        "has a name that cannot be a lock's, '" + declared + "': " + e.getMessage() + ".",
                        "Give the " + what + " a name that fits a lock's key, or set the property it refers to.",
                        e);
            }
        }

        /** The {@code leaseDuration}, or the default when empty; checked against the range. */
        Duration leaseDuration() {
            Duration lease = duration("leaseDuration");
            if (lease == null) {
                return defaultLeaseDuration.get();
            }
            if (!LockTable.isLeaseDuration(lease)) {
                String range = simple(LockTable.MIN_LEASE_DURATION) + " to " + simple(LockTable.MAX_LEASE_DURATION);
                throw fail(
                        "has leaseDuration " + simple(lease) + ", outside the range a lease may have, " + range + ".",
                        "Give it a lease from " + range
                                + ", such as \"30s\", or leave it empty for locktable.lease-duration.");
            }
            return lease;
        }

        /**
         * A duration attribute read by {@link LockDurations}'s rule, as the properties are (a number without a unit
         * is seconds, one of 1000 or more is refused), not negative; null when empty, placeholders resolved first.
         */
        @Nullable
        Duration duration(String attribute) {
            String declared = annotation.getString(attribute);
            String text = resolved(attribute).trim();
            String shown =
                    declared.trim().equals(text) ? "'" + text + "'" : "'" + declared + "' (resolved to '" + text + "')";
            Duration duration;
            try {
                duration = LockDurations.parse(text).orElse(null);
            } catch (LockDurations.UnitMissingException e) {
                List<String> meant = e.meant();
                throw fail(
                        "has " + attribute + " " + shown + ": " + e.getMessage(),
                        "Write the unit: " + attribute + " = \"" + meant.get(0) + "\" or " + attribute + " = \""
                                + meant.get(1) + "\""
                                + (declared.trim().equals(text) ? "" : " (in the property it reads)")
                                + ". A number without a unit is in seconds, as in the locktable.* properties; write \""
                                + e.number() + "s\" if that many seconds is meant.",
                        e);
            } catch (IllegalArgumentException e) {
                throw fail(
                        "has " + attribute + " " + shown + ", which is not a duration.",
                        "Write it like \"30s\", \"2m\" or \"PT30S\" (a number without a unit is in seconds).",
                        e);
            }
            if (duration != null && duration.isNegative()) {
                throw fail(
                        "has " + attribute + " " + shown + ", which is negative.",
                        "Give it zero or a positive duration, such as \"30s\", or leave it empty.");
            }
            return duration;
        }

        private String resolved(String attribute) {
            String declared = annotation.getString(attribute);
            try {
                return environment.resolveRequiredPlaceholders(declared);
            } catch (IllegalArgumentException e) {
                throw fail(
                        "has " + attribute + " '" + declared + "', whose placeholder does not resolve: "
                                + e.getMessage(),
                        "Set the property it refers to, or give it a default like ${app.lock:order-sweeper}.",
                        e);
            }
        }
    }

    /**
     * The reflection hints a native image needs for a bean with annotated methods: its type and the annotations (read
     * at startup), the methods (called by the proxy), and the root object of {@code #{...}} names (SpEL reads its
     * getters; an expression that calls methods of an argument needs hints of its own). In {@code aot.factories}.
     */
    static final class AotHints implements BeanRegistrationAotProcessor {

        @Override
        public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
            Class<?> type = ClassUtils.getUserClass(bean.getBeanClass());
            Map<Method, MergedAnnotation<?>> methods = annotated(type);
            return methods.isEmpty()
                    ? null
                    : (generationContext, code) -> {
                        ReflectionHints reflection =
                                generationContext.getRuntimeHints().reflection();
                        reflection.registerType(type);
                        methods.forEach((method, annotation) -> {
                            reflection.registerMethod(method, ExecutableMode.INVOKE);
                            annotation.getMetaTypes().forEach(reflection::registerType);
                            if (LockNameTemplate.isTemplate(annotation.getString("name"))) {
                                reflection.registerType(
                                        LockNameTemplate.Root.class, MemberCategory.INVOKE_PUBLIC_METHODS);
                            }
                        });
                    };
        }
    }
}
