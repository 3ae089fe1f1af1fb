package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.actuate.LockTableHealthIndicator;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The {@code locktable} health indicator ({@link LockTableHealthIndicator}), a listener of the auto-configured lock
 * table, unless {@code management.health.locktable.enabled=false}; {@code locktable.health.down-after} sets it.
 * Backs off for a bean named {@code locktableHealthIndicator} or {@code locktableHealthContributor}, or a {@code
 * LockTableHealthIndicator}.
 */
@AutoConfiguration(after = {LockTableAutoConfiguration.class, LeaderOnlyAutoConfiguration.class})
@ConditionalOnClass({HealthIndicator.class, LockTable.class})
@EnableConfigurationProperties(LockTableProperties.class)
@ConditionalOnSingleCandidate(LockTable.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableHealthAutoConfiguration {

    LockTableHealthAutoConfiguration() {}

    @Bean
    @ConditionalOnEnabledHealthIndicator("locktable")
    @ConditionalOnMissingBean(
            value = LockTableHealthIndicator.class,
            name = {"locktableHealthIndicator", "locktableHealthContributor"})
    LockTableHealthIndicator locktableHealthIndicator(
            ObjectProvider<LockTable> lockTable,
            ObjectProvider<LeaderRunner> leaderRunner,
            LockTableProperties properties,
            Environment environment) {
        LockTableProperties.Health health = properties.getHealth();
        return new LockTableHealthIndicator(
                lockTable::getIfUnique,
                leaderRunner::getIfUnique,
                DurationProperties.notNegative(environment, "locktable.health.down-after", health.getDownAfter()));
    }
}
