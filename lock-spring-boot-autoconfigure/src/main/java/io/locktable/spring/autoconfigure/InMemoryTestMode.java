package io.locktable.spring.autoconfigure;

import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * The test mode {@code locktable.test.in-memory=true} (first named {@code locktable.test.lead-everything}): the lock
 * table is {@link io.locktable.LockTable#inMemory in memory}. Honoured only with the marker class of {@code
 * lock-spring-boot-test} on the class path, a test-scoped dependency, so that a stray property in production changes
 * nothing but a WARN.
 */
class InMemoryTestMode extends SpringBootCondition {

    static final String PROPERTY = "locktable.test.in-memory";
    static final String FIRST_PROPERTY = "locktable.test.lead-everything";
    static final String MARKER = "io.locktable.spring.test.LockTableTestMode";

    /** Spring's test context cache keeps contexts open together: each gets a table of its own, or one would lead all. */
    private static final AtomicInteger tables = new AtomicInteger();

    static boolean isOn(Environment environment, @Nullable ClassLoader classLoader) {
        return asked(environment) != null && ClassUtils.isPresent(MARKER, classLoader);
    }

    /** The property that asks for the mode, or null. */
    static @Nullable String asked(Environment environment) {
        if (environment.getProperty(PROPERTY, Boolean.class, false)) {
            return PROPERTY;
        }
        return environment.getProperty(FIRST_PROPERTY, Boolean.class, false) ? FIRST_PROPERTY : null;
    }

    /** {@code locktable.table-name} (or {@code locktable}) and a number of its own. */
    static String tableName(@Nullable String configured) {
        String base = configured == null || configured.isBlank() ? "locktable" : configured.trim();
        return base + "-in-memory-" + tables.incrementAndGet();
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        boolean on = isOn(context.getEnvironment(), context.getClassLoader());
        return new ConditionOutcome(on == matchesOn(), PROPERTY + (on ? "=true with " + MARKER : " off"));
    }

    boolean matchesOn() {
        return true;
    }

    /** Matches when the mode is off, as always in production. */
    static final class Off extends InMemoryTestMode {
        @Override
        boolean matchesOn() {
            return false;
        }
    }
}
