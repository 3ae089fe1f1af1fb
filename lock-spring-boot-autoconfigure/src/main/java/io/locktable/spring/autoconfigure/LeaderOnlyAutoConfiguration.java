package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockAnnotationAdvisor;
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
 * {@link LeaderOnly}: the {@link LeaderRunner} (unless {@code locktable.leader.enabled=false}) and the {@link
 * LockAnnotationAdvisor}, each backing off when the context has one.
 */
@AutoConfiguration(after = {LockTableAutoConfiguration.class, AopAutoConfiguration.class})
@EnableConfigurationProperties(LockTableProperties.class)
@Import(LockAnnotationConfiguration.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LeaderOnlyAutoConfiguration {

    LeaderOnlyAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(LockTable.class)
    @ConditionalOnBooleanProperty(name = "locktable.leader.enabled", matchIfMissing = true)
    LeaderRunner leaderRunner(LockTable lockTable, LockTableProperties properties, Environment environment) {
        return new LeaderRunner(lockTable, DurationProperties.shutdownTimeout(properties, environment));
    }
}
