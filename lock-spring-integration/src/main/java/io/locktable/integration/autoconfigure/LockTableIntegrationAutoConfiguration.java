package io.locktable.integration.autoconfigure;

import io.locktable.LockTable;
import io.locktable.integration.LeaderEventBridge;
import io.locktable.integration.LockTableLockRegistry;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.autoconfigure.LockTableProperties;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * Spring Integration over the context's {@link LockTable}: with {@code lock-spring-integration}, Spring Integration
 * and the LockTable starter on the class path, a {@link LockTableLockRegistry} (leases of {@code
 * locktable.lease-duration}) unless the context defines a {@link LockRegistry} of its own or has no single {@code
 * LockTable}, and a {@link LeaderEventBridge} that publishes Spring Integration's {@code OnGrantedEvent} / {@code
 * OnRevokedEvent} for the starter's {@link LeaderRunner} unless the context defines a bridge of its own. Nothing with
 * {@code locktable.enabled=false}.
 */
@AutoConfiguration(
        afterName = {
            "io.locktable.spring.autoconfigure.LockTableAutoConfiguration",
            "io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration"
        })
@ConditionalOnClass({LockRegistry.class, LockTable.class})
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableIntegrationAutoConfiguration {

    private static final String STARTER_PROPERTIES = "io.locktable.spring.autoconfigure.LockTableProperties";

    LockTableIntegrationAutoConfiguration() {}

    /** The registry with the starter's properties: leases of {@code locktable.lease-duration}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = STARTER_PROPERTIES)
    static final class RegistryWithStarter {

        RegistryWithStarter() {}

        @Bean
        @ConditionalOnMissingBean(LockRegistry.class)
        @ConditionalOnSingleCandidate(LockTable.class)
        LockTableLockRegistry lockTableLockRegistry(
                LockTable lockTable, ObjectProvider<LockTableProperties> properties) {
            LockTableProperties configured = properties.getIfAvailable();
            return configured == null
                    ? new LockTableLockRegistry(lockTable)
                    : new LockTableLockRegistry(lockTable, configured.getLeaseDuration());
        }
    }

    /** The registry of an application that builds its {@code LockTable} without the starter: default leases. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass(STARTER_PROPERTIES)
    static final class RegistryWithoutStarter {

        RegistryWithoutStarter() {}

        @Bean
        @ConditionalOnMissingBean(LockRegistry.class)
        @ConditionalOnSingleCandidate(LockTable.class)
        LockTableLockRegistry lockTableLockRegistry(LockTable lockTable) {
            return new LockTableLockRegistry(lockTable);
        }
    }

    /** The bridge, only with the starter's leader runner on the class path and in the context. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(LeaderRunner.class)
    @ConditionalOnBean(LeaderRunner.class)
    static final class LeaderEvents {

        LeaderEvents() {}

        @Bean
        @ConditionalOnMissingBean
        LeaderEventBridge lockTableLeaderEventBridge(
                ObjectProvider<LeaderEventPublisher> leaderEventPublisher, ApplicationEventPublisher events) {
            return new LeaderEventBridge(
                    leaderEventPublisher.getIfAvailable(() -> new DefaultLeaderEventPublisher(events)));
        }
    }
}
