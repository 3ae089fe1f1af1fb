package io.locktable.spring.autoconfigure;

import io.locktable.spring.LockAnnotationAdvisor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * The {@link LockAnnotationAdvisor} of {@code @LeaderOnly} and {@code @LockedRun}, imported by both their
 * auto-configurations (once, however many import it). It applies through the context's auto-proxy creator (Spring
 * Boot's AOP auto-configuration, or Spring's infrastructure one when there is none), whose {@code
 * spring.aop.proxy-target-class} decides between interface-based and class-based proxies. It backs off when the
 * context has an advisor of this type.
 */
@Configuration(proxyBeanMethods = false)
@Import(AutoProxyCreatorRegistrar.class)
class LockAnnotationConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockAnnotationAdvisor lockAnnotationAdvisor(
            ObjectProvider<LockTableProperties> properties, Environment environment) {
        return new LockAnnotationAdvisor(() -> DurationProperties.leaseDuration(properties.getObject(), environment));
    }
}
