package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.test.LockTableTestMode;
import java.time.Duration;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.NameMatchMethodPointcut;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;

/**
 * {@code @LeaderOnly} through the proxies Spring Boot's AOP auto-configuration chooses: interface-based with {@code
 * spring.aop.proxy-target-class=false}, class-based otherwise; and the starter does not change that choice for the
 * application's other beans. The lock table is in memory.
 */
class LeaderOnlyProxyingTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    AopAutoConfiguration.class,
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class))
            .withPropertyValues(LockTableTestMode.ON, "locktable.lease-duration=2s");

    @ParameterizedTest(name = "spring.aop.proxy-target-class={0}")
    @ValueSource(booleans = {true, false})
    void aLeaderOnlyMethodOfABeanWithAnInterfaceIsCheckedWithEitherProxy(boolean proxyTargetClass) {
        String name = "proxied-" + proxyTargetClass;
        runner.withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass, "job.name=" + name)
                .withUserConfiguration(Beans.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Work work = context.getBean(Work.class);
                    assertThat(AopUtils.isCglibProxy(work)).isEqualTo(proxyTargetClass);
                    assertThat(AopUtils.isJdkDynamicProxy(work)).isEqualTo(!proxyTargetClass);
                    LeaderRunner leaders = context.getBean(LeaderRunner.class);
                    assertThat(leaders.names())
                            .as("found at startup behind the proxy")
                            .containsExactly(name);

                    await().atMost(Duration.ofSeconds(6)).until(() -> leaders.isLeader(name));
                    long token = leaders.lease(name).orElseThrow().fencingToken();
                    assertThat(work.work()).isEqualTo(token);
                    leaders.yield(name);
                    assertThat(work.work())
                            .as("skipped once it no longer leads")
                            .isNull();
                });
    }

    @ParameterizedTest(name = "spring.aop.proxy-target-class={0}")
    @ValueSource(booleans = {true, false})
    void theProxiesOfOtherBeansAreWhatTheApplicationAsks(boolean proxyTargetClass) {
        runner.withPropertyValues("spring.aop.proxy-target-class=" + proxyTargetClass, "job.name=unrelated")
                .withUserConfiguration(Beans.class, Unrelated.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Greeter greeter = context.getBean(Greeter.class);
                    assertThat(AopUtils.isAopProxy(greeter)).isTrue();
                    assertThat(AopUtils.isCglibProxy(greeter)).isEqualTo(proxyTargetClass);
                    assertThat(greeter.greet()).isEqualTo("hello!");
                });
    }

    /** Work of a bean that implements an interface. */
    public interface Work {
        Long work();
    }

    static class LeaderWork implements Work {
        @Override
        @LeaderOnly("${job.name}")
        public Long work() {
            return Lease.current().orElseThrow().fencingToken();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {
        @Bean
        LeaderWork leaderWork() {
            return new LeaderWork();
        }
    }

    /** A bean of the application that an advisor of its own proxies, and that has nothing to do with the locks. */
    public interface Greeter {
        String greet();
    }

    static class PlainGreeter implements Greeter {
        @Override
        public String greet() {
            return "hello";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Unrelated {
        @Bean
        PlainGreeter greeter() {
            return new PlainGreeter();
        }

        @Bean
        @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
        static DefaultPointcutAdvisor exclaim() {
            NameMatchMethodPointcut pointcut = new NameMatchMethodPointcut();
            pointcut.addMethodName("greet");
            MethodInterceptor exclaim = invocation -> invocation.proceed() + "!";
            return new DefaultPointcutAdvisor(pointcut, exclaim);
        }
    }
}
