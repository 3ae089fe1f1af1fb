package io.locktable.spring.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Makes sure the context has an auto-proxy creator for the advisor of {@code @LeaderOnly} and {@code @LockedRun}, as
 * {@code @EnableTransactionManagement} does for transactions: it registers Spring's infrastructure one only when there
 * is none, and a more capable one (Boot's AOP auto-configuration, AspectJ's) takes its place. It leaves the choice
 * between interface-based and class-based proxies to the application ({@code spring.aop.proxy-target-class}).
 */
final class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
    }
}
