package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * The test mode {@code locktable.test.in-memory=true} (first named {@code locktable.test.lead-everything=true},
 * which means the same): the starter builds its {@link LockTable} with {@link LockTable#inMemory}, so the locks live
 * in the JVM's memory and an application's tests start without any engine, while everything else (the leader
 * runner, the locked runs, the advisor, the endpoint, the meters) works as in production over that table. The
 * {@code DynamoDbClient} is still built when the context has none, as the application's own beans inject it;
 * building it sends no request.
 *
 * <p>It is honoured only when the marker class {@value #MARKER} is on the class path: it ships in {@code
 * lock-spring-boot-test}, a test-scoped dependency, so an application packaged for production does not have it, and
 * the property there changes nothing but a WARN at startup.
 */
final class InMemoryTestMode {

    /** The property. */
    static final String PROPERTY = "locktable.test.in-memory";

    /** The first name of the property, still honoured. */
    static final String FIRST_PROPERTY = "locktable.test.lead-everything";

    /** The marker class of {@code lock-spring-boot-test}. */
    static final String MARKER = "io.locktable.spring.test.LockTableTestMode";

    private static final Logger log = LoggerFactory.getLogger(InMemoryTestMode.class);

    /** Numbers the in-memory tables of the JVM: each context gets a table of its own (see {@link #tableName}). */
    private static final AtomicInteger tables = new AtomicInteger();

    private InMemoryTestMode() {}

    /** Whether the mode is on: one of the properties is true and the marker is on the class path. */
    static boolean isOn(Environment environment, @Nullable ClassLoader classLoader) {
        return asked(environment) != null && ClassUtils.isPresent(MARKER, classLoader);
    }

    /** Warns when a property asks for the mode and the marker is absent, as in production: the locks work as usual. */
    static void warnIfAsked(Environment environment) {
        String property = asked(environment);
        if (property != null) {
            log.warn(
                    "{}=true is ignored: it works only in tests, with io.locktable:lock-spring-boot-test on the class"
                            + " path; the locks are in DynamoDB as usual",
                    property);
        }
    }

    /**
     * The name of a new in-memory table: {@code locktable.table-name} (or {@code locktable} when unset) and a number
     * of its own. Every in-memory table of one name in the JVM shares its locks, and Spring's test context cache
     * keeps several contexts open in one JVM: with a shared name, the first context would lead every name and the
     * {@code @LeaderOnly} methods of the others would never run.
     */
    static String tableName(@Nullable String configured) {
        String base = configured == null || configured.isBlank() ? "locktable" : configured.trim();
        return base + "-in-memory-" + tables.incrementAndGet();
    }

    /** Logs that the mode is on, once per context, with the table's name. */
    static void log(Environment environment, LockTable locks) {
        log.info(
                "{}=true: the locks are in memory, in the table '{}' of this JVM (a test mode)",
                asked(environment),
                locks.tableName());
    }

    /** The property that asks for the mode, or null when none does. */
    private static @Nullable String asked(Environment environment) {
        if (environment.getProperty(PROPERTY, Boolean.class, false)) {
            return PROPERTY;
        }
        return environment.getProperty(FIRST_PROPERTY, Boolean.class, false) ? FIRST_PROPERTY : null;
    }

    /** Matches when the test mode is on: a property asks for it and the marker is on the class path. */
    static final class On extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            if (isOn(context.getEnvironment(), context.getClassLoader())) {
                return ConditionOutcome.match(PROPERTY + "=true with " + MARKER + " on the class path");
            }
            return ConditionOutcome.noMatch("not in the test mode " + PROPERTY);
        }
    }

    /** Matches when the test mode is off, which is always the case in production. */
    static final class Off extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            if (isOn(context.getEnvironment(), context.getClassLoader())) {
                return ConditionOutcome.noMatch(
                        PROPERTY + "=true with " + MARKER + " on the class path: the locks" + " are in memory");
            }
            return ConditionOutcome.match("not in the test mode " + PROPERTY);
        }
    }
}
