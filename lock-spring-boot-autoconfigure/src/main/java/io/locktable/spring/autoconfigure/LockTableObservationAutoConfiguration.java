package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.AcquireObservationConvention;
import io.locktable.spring.actuate.AcquireObservations;
import io.locktable.spring.actuate.LeaderTermObservationConvention;
import io.locktable.spring.actuate.LeaderTermObservations;
import io.locktable.spring.actuate.LockedRunObservationConvention;
import io.locktable.spring.actuate.LockedRunObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer observations, when its Observation API is on the class path and the context has an {@link
 * ObservationRegistry} (as Spring Boot's observation auto-configuration provides): of the acquires of the lock table
 * ({@link AcquireObservations}, a listener of the table), of leader terms ({@link LeaderTermObservations}, with a
 * {@link LeaderRunner}) and of {@code @LockedRun} calls ({@link LockedRunObservations}, set on the {@link
 * LockedRuns}). A convention bean of each kind replaces the default one; each observer backs off when the context has
 * a bean of its type.
 */
@AutoConfiguration(
        after = {LockTableAutoConfiguration.class, LeaderOnlyAutoConfiguration.class, LockedRunAutoConfiguration.class},
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
@ConditionalOnClass({ObservationRegistry.class, LeaderRunner.class})
@ConditionalOnBean(ObservationRegistry.class)
public final class LockTableObservationAutoConfiguration {

    LockTableObservationAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LeaderRunner.class)
    LeaderTermObservations leaderTermObservations(
            ObservationRegistry observationRegistry, ObjectProvider<LeaderTermObservationConvention> convention) {
        return new LeaderTermObservations(observationRegistry, convention.getIfUnique());
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LockTable.class)
    AcquireObservations acquireObservations(
            ObservationRegistry observationRegistry,
            ObjectProvider<AcquireObservationConvention> convention,
            ObjectProvider<LeaderRunner> leaderRunner,
            ObjectProvider<LockedRuns> lockedRuns) {
        return new AcquireObservations(
                observationRegistry, convention.getIfUnique(), leaderRunner::getIfUnique, lockedRuns::getIfUnique);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(LockedRuns.class)
    LockedRunObservations lockedRunObservations(
            ObservationRegistry observationRegistry,
            ObjectProvider<LockedRunObservationConvention> convention,
            LockedRuns lockedRuns) {
        LockedRunObservations observations = new LockedRunObservations(observationRegistry, convention.getIfUnique());
        lockedRuns.observer(observations);
        return observations;
    }
}
