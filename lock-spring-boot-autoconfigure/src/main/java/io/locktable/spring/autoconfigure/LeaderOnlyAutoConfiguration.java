package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderOnlyAdvisor;
import io.locktable.spring.LeaderRunner;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * {@link LeaderOnly}: the {@link LeaderRunner} that keeps one leadership per name (unless {@code
 * locktable.leader.enabled=false}) and the {@link LeaderOnlyAdvisor} that admits or skips calls. The advisor applies
 * through the context's auto-proxy creator (Spring Boot's AOP auto-configuration, or Spring's infrastructure one when
 * there is none), whose {@code spring.aop.proxy-target-class} decides between interface-based and class-based
 * proxies. Each backs off when the context has a bean of its type.
 */
@AutoConfiguration(after = {LockTableAutoConfiguration.class, AopAutoConfiguration.class})
@EnableConfigurationProperties(LockTableProperties.class)
@Import(AutoProxyCreatorRegistrar.class)
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

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderOnlyAdvisor leaderOnlyAdvisor(
            ObjectProvider<LockTableProperties> properties, Environment environment) {
        return new LeaderOnlyAdvisor(() -> DurationProperties.leaseDuration(properties.getObject(), environment));
    }
}
