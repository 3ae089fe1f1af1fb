package io.locktable.spring.test;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableConnectionDetails;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientBuilderCustomizer;
import java.util.List;
import org.springframework.beans.BeansException;
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
 * that a test may call them as soon as it runs; and a fenced write that the application sends through the starter's
 * {@code DynamoDbClient} with an in-memory lease's held check is not sent, and fails the test with what to do instead
 * ({@code InMemoryFencedWrites}). The lock table itself is the starter's, built in memory.
 */
@AutoConfiguration(after = LeaderOnlyAutoConfiguration.class)
@Conditional(LockTableTestModeAutoConfiguration.TestModeCondition.class)
public final class LockTableTestModeAutoConfiguration {

    LockTableTestModeAutoConfiguration() {}

    @Bean
    @ConditionalOnBean(LeaderRunner.class)
    static FirstTermsAtStartup lockTableFirstTermsAtStartup(ObjectProvider<LeaderRunner> runner) {
        return new FirstTermsAtStartup(runner);
    }

    @Bean
    InMemoryFencedWrites lockTableInMemoryFencedWrites(
            ObjectProvider<LockTable> lockTables, ObjectProvider<LockTableConnectionDetails> connection) {
        LockTableConnectionDetails details = connection.getIfAvailable();
        return new InMemoryFencedWrites(
                () -> {
                    try {
                        return lockTables.orderedStream().toList();
                    } catch (BeansException e) {
                        return List.of(); // the context is closing, or its lock table failed to build
                    }
                },
                details == null ? null : details.getEndpoint());
    }

    @Bean
    LockTableDynamoDbClientBuilderCustomizer lockTableInMemoryFencedWritesInterceptor(InMemoryFencedWrites writes) {
        // added to what other customizers configured, not in place of it
        return builder -> builder.overrideConfiguration(builder.overrideConfiguration().toBuilder()
                .addExecutionInterceptor(writes)
                .build());
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
