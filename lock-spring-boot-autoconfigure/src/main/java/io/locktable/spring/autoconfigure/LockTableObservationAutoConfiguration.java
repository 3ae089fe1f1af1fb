package io.locktable.spring.autoconfigure;

import io.locktable.spring.LeaderRunner;
import io.locktable.spring.actuate.LeaderTermObservationConvention;
import io.locktable.spring.actuate.LeaderTermObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The observations of leader terms ({@link LeaderTermObservations}), when Micrometer's Observation API is on the
 * class path and the context has an {@link ObservationRegistry} (as Spring Boot's observation auto-configuration
 * provides) and a {@link LeaderRunner}. A {@link LeaderTermObservationConvention} bean replaces the default
 * convention. Backs off when the context has a {@code LeaderTermObservations}.
 */
@AutoConfiguration(
        after = LeaderOnlyAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
@ConditionalOnClass({ObservationRegistry.class, LeaderRunner.class})
@ConditionalOnBean({ObservationRegistry.class, LeaderRunner.class})
public final class LockTableObservationAutoConfiguration {

    LockTableObservationAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    LeaderTermObservations leaderTermObservations(
            ObservationRegistry observationRegistry, ObjectProvider<LeaderTermObservationConvention> convention) {
        return new LeaderTermObservations(observationRegistry, convention.getIfUnique());
    }
}
