package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LockAnnotationAdvisor;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRuns;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * {@link LockedRun}: the {@link LockedRuns} over the context's single {@link LockTable} and the {@link
 * LockAnnotationAdvisor}, each backing off when the context has one.
 */
@AutoConfiguration(after = {LockTableAutoConfiguration.class, AopAutoConfiguration.class})
@EnableConfigurationProperties(LockTableProperties.class)
@Import(LockAnnotationConfiguration.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockedRunAutoConfiguration {

    LockedRunAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(LockTable.class)
    LockedRuns lockedRuns(LockTable lockTable, LockTableProperties properties, Environment environment) {
        return new LockedRuns(lockTable, DurationProperties.shutdownTimeout(properties, environment));
    }
}
