package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.LocksEndpoint;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/** The {@code locks} actuator endpoint ({@link LocksEndpoint}) when it is exposed; backs off for a bean of its own. */
@AutoConfiguration(
        after = {LockTableAutoConfiguration.class, LeaderOnlyAutoConfiguration.class, LockedRunAutoConfiguration.class})
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class, LockTable.class})
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableActuatorAutoConfiguration {

    LockTableActuatorAutoConfiguration() {}

    @Bean
    @ConditionalOnAvailableEndpoint
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(LockTable.class)
    LocksEndpoint locksEndpoint(
            LockTable lockTable, ObjectProvider<LeaderRunner> leaderRunner, ObjectProvider<LockedRuns> lockedRuns) {
        return new LocksEndpoint(lockTable, leaderRunner.getIfUnique(), lockedRuns.getIfUnique());
    }
}
