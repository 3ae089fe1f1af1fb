package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.LockTableMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * The {@code locktable.*} meters ({@link LockTableMetrics}, a listener of the auto-configured lock table), when the
 * context has a {@link MeterRegistry}; backs off for a {@code LockTableMetrics} of its own.
 */
@AutoConfiguration(
        after = {LockTableAutoConfiguration.class, LeaderOnlyAutoConfiguration.class, LockedRunAutoConfiguration.class},
        afterName = {
            "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"
        })
@ConditionalOnClass({MeterRegistry.class, LockTable.class})
@ConditionalOnSingleCandidate(LockTable.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableMetricsAutoConfiguration {

    LockTableMetricsAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    LockTableMetrics lockTableMetrics(
            ObjectProvider<LockTable> lockTable,
            ObjectProvider<LeaderRunner> leaderRunner,
            ObjectProvider<LockedRuns> lockedRuns) {
        return new LockTableMetrics(lockTable::getIfUnique, leaderRunner::getIfUnique, lockedRuns::getIfUnique);
    }
}
