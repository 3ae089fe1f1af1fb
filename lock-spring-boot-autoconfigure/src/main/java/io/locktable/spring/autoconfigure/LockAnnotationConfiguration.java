package io.locktable.spring.autoconfigure;

import io.locktable.spring.LockAnnotationAdvisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The advisor of {@code @LeaderOnly} and {@code @LockedRun}, imported by both their auto-configurations. Like
 * {@code @EnableTransactionManagement}, it registers Spring's infrastructure auto-proxy creator when the context has
 * none (a more capable one, such as Boot's AOP auto-configuration's, takes its place).
 */
@Configuration(proxyBeanMethods = false)
@Import(LockAnnotationConfiguration.AutoProxyCreatorRegistrar.class)
class LockAnnotationConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LockAnnotationAdvisor lockAnnotationAdvisor(
            ObjectProvider<LockTableProperties> properties, Environment environment) {
        return new LockAnnotationAdvisor(() -> DurationProperties.leaseDuration(properties.getObject(), environment));
    }

    static final class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
