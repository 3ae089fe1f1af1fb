package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.AcquireObservationConvention;
import io.locktable.spring.actuate.DefaultAcquireObservationConvention;
import io.locktable.spring.actuate.DefaultLeaderTermObservationConvention;
import io.locktable.spring.actuate.DefaultLockedRunObservationConvention;
import io.locktable.spring.actuate.LeaderTermObservationConvention;
import io.locktable.spring.actuate.LockObservations;
import io.locktable.spring.actuate.LockTableMetrics;
import io.locktable.spring.actuate.LockedRunObservationConvention;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer observations of acquires, {@code @LockedRun} calls and leader terms ({@link LockObservations}), when the
 * context has an {@link ObservationRegistry}. A convention bean of each kind replaces the default one; a {@code
 * LockObservations} bean of the application replaces this one. With context-propagation on the class path, the
 * auto-configured table makes an acquire's caller's context current while its events are heard, so that each
 * acquire's observation is a child of the caller's current one.
 *
 * <p>Where the context has the {@code locktable.*} meters ({@link LockTableMetrics}), the observations make no meters
 * of their own (a {@link MeterFilter} denies them): Boot's meter handler would otherwise time the same events a
 * second time under other names ({@code locktable.acquisition} beside {@code locktable.acquire}, a follower's whole
 * wait as one acquisition), without help texts, and count long tasks whose outcome is not known yet. The observations
 * stay for traces.
 */
@AutoConfiguration(
        after = {
            LockTableAutoConfiguration.class,
            LeaderOnlyAutoConfiguration.class,
            LockedRunAutoConfiguration.class,
            LockTableMetricsAutoConfiguration.class
        },
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
@ConditionalOnClass({ObservationRegistry.class, LeaderRunner.class})
@ConditionalOnBean({ObservationRegistry.class, LockTable.class})
public final class LockTableObservationAutoConfiguration {

    LockTableObservationAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean
    LockObservations lockObservations(
            ObservationRegistry observationRegistry,
            ObjectProvider<AcquireObservationConvention> acquires,
            ObjectProvider<LockedRunObservationConvention> runs,
            ObjectProvider<LeaderTermObservationConvention> terms,
            ObjectProvider<LeaderRunner> leaderRunner,
            ObjectProvider<LockedRuns> lockedRuns) {
        return new LockObservations(
                observationRegistry,
                acquires.getIfUnique(),
                runs.getIfUnique(),
                terms.getIfUnique(),
                leaderRunner::getIfUnique,
                lockedRuns::getIfUnique);
    }

    /**
     * Acquires heard with their caller's context ({@link LockTable.Builder#propagateContextToListeners}), so that an
     * acquire's observation, started on the table's event thread, has the caller's current observation as its parent.
     * Only with context-propagation ({@code io.micrometer:context-propagation}), which carries it there.
     */
    @Bean
    @ConditionalOnClass(name = "io.micrometer.context.ContextSnapshotFactory")
    LockTableBuilderCustomizer lockTableCallerContext() {
        return builder -> builder.propagateContextToListeners(true);
    }

    /** The {@code @LockedRun} calls are observed by the context's {@code LockObservations}, ours or the application's. */
    @Bean
    SmartInitializingSingleton lockObservationsOfLockedRuns(
            ObjectProvider<LockObservations> observations, ObjectProvider<LockedRuns> lockedRuns) {
        return () -> lockedRuns.ifUnique(runs -> observations.ifUnique(runs::observer));
    }

    /** Only with Micrometer's meters and the {@code locktable.*} meters. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterFilter.class)
    @ConditionalOnBean(LockTableMetrics.class)
    static class ObservationsWithoutMeters {

        /**
         * Denies the meters Boot's meter handler would make of the observations ({@code <name>} and {@code
         * <name>.active}, for the names of the conventions in use): the {@code locktable.*} meters of {@link
         * LockTableMetrics} are the one family of each event.
         */
        @Bean
        MeterFilter lockObservationsWithoutMeters(
                ObjectProvider<AcquireObservationConvention> acquires,
                ObjectProvider<LockedRunObservationConvention> runs,
                ObjectProvider<LeaderTermObservationConvention> terms) {
            Set<String> names = Set.copyOf(List.of(
                    acquires.getIfUnique(DefaultAcquireObservationConvention::new)
                            .getName(),
                    runs.getIfUnique(DefaultLockedRunObservationConvention::new).getName(),
                    terms.getIfUnique(DefaultLeaderTermObservationConvention::new)
                            .getName()));
            return MeterFilter.deny(id -> names.contains(id.getName())
                    || (id.getName().endsWith(".active")
                            && names.contains(
                                    id.getName().substring(0, id.getName().length() - ".active".length()))));
        }
    }
}
