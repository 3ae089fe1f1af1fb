package io.locktable.spring.test;

import io.locktable.spring.LeaderRunner;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * What the in-memory test mode ({@link LockTableTestMode}) adds in tests only: the context's start waits until this
 * instance leads the names of its {@code @LeaderOnly} methods, which it does at once over the in-memory table, so
 * that a test may call them as soon as it runs. The lock table itself is the starter's, built in memory.
 */
@AutoConfiguration(after = LeaderOnlyAutoConfiguration.class)
@ConditionalOnBean(LeaderRunner.class)
@Conditional(LockTableTestModeAutoConfiguration.TestModeCondition.class)
public final class LockTableTestModeAutoConfiguration {

    LockTableTestModeAutoConfiguration() {}

    @Bean
    static FirstTermsAtStartup lockTableFirstTermsAtStartup(ObjectProvider<LeaderRunner> runner) {
        return new FirstTermsAtStartup(runner);
    }

    /** The test mode is asked for, under either of its names. */
    static final class TestModeCondition extends AnyNestedCondition {

        TestModeCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnBooleanProperty(LockTableTestMode.PROPERTY)
        static final class InMemory {}

        @ConditionalOnBooleanProperty(LockTableTestMode.FIRST_PROPERTY)
        static final class LeadEverything {}
    }
}
