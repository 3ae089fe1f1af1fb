package io.locktable.spring.autoconfigure;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * The test mode {@code locktable.test.lead-everything=true}: every {@code @LeaderOnly} and {@code @LockedRun} call
 * runs, with no lock taken and no lease bound, and the starter builds no {@code LockTable} or runner, so an
 * application's tests start without any engine. It still builds the {@code DynamoDbClient} when the context has
 * none, as the application's own beans inject it; building it sends no request.
 *
 * <p>It is honoured only when the marker class {@value #MARKER} is on the class path: it ships in {@code
 * lock-spring-boot-test}, a test-scoped dependency, so an application packaged for production does not have it, and
 * the property there changes nothing but a WARN at startup. The declarations are still checked in this mode.
 */
final class LeadEverything {

    /** The property. */
    static final String PROPERTY = "locktable.test.lead-everything";

    /** The marker class of {@code lock-spring-boot-test}. */
    static final String MARKER = "io.locktable.spring.test.LockTableTestMode";

    private static final Logger log = LoggerFactory.getLogger(LeadEverything.class);

    private LeadEverything() {}

    /** Whether the mode is on: the property is true and the marker is on the class path. */
    static boolean isOn(Environment environment, ClassLoader classLoader) {
        return asked(environment) && ClassUtils.isPresent(MARKER, classLoader);
    }

    /** Whether the mode is on, saying so in the log, or why it is not when the property asks for it. */
    static boolean check(Environment environment, ClassLoader classLoader) {
        if (!asked(environment)) {
            return false;
        }
        if (!ClassUtils.isPresent(MARKER, classLoader)) {
            log.warn(
                    "{}=true is ignored: it works only in tests, with io.locktable:lock-spring-boot-test on the class"
                            + " path; @LeaderOnly and @LockedRun methods take their locks as usual",
                    PROPERTY);
            return false;
        }
        log.info("{}=true: every @LeaderOnly and @LockedRun call runs, without any lock (a test mode)", PROPERTY);
        return true;
    }

    private static boolean asked(Environment environment) {
        return environment.getProperty(PROPERTY, Boolean.class, false);
    }

    /** Matches when the test mode is off, which is always the case in production. */
    static final class Off extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            if (isOn(context.getEnvironment(), context.getClassLoader())) {
                return ConditionOutcome.noMatch(
                        PROPERTY + "=true with " + MARKER + " on the class path: a test that" + " needs no lock table");
            }
            return ConditionOutcome.match("not in the test mode " + PROPERTY);
        }
    }
}
