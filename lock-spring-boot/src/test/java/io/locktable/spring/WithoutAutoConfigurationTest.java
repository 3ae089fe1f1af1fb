package io.locktable.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LeaseEnd;
import io.locktable.LockTable;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.autoproxy.DefaultAdvisorAutoProxyCreator;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * This module without the auto-configuration: a Spring context that declares the lock table, the runner, the runs
 * and the advisor itself (as an application that does not use Spring Boot's auto-configuration would) gets {@code
 * @LeaderOnly} and {@code @LockedRun} as the starter gives them, with the lease bound, and its close releases the
 * leader's lease. The lock table is in memory: what is tested is the wiring.
 */
class WithoutAutoConfigurationTest {

    private static final Duration WITHIN = Duration.ofSeconds(10);

    @Test
    void theAnnotationsWorkInAContextThatDeclaresTheBeansItself() throws Exception {
        Lease term;
        Jobs jobs;
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Wiring.class)) {
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            jobs = context.getBean(Jobs.class);
            assertThat(AopUtils.isAopProxy(jobs)).as("advised").isTrue();
            assertThat(leaders.names()).as("found at startup").containsExactly("plain-sweeper");

            await().atMost(WITHIN).until(() -> leaders.isLeader("plain-sweeper"));
            term = leaders.lease("plain-sweeper").orElseThrow();
            assertThat(jobs.sweep()).as("the term's token, bound").isEqualTo(term.fencingToken());
            assertThat(jobs.report()).as("the run's own lock, bound").isEqualTo("plain-report");
            assertThat(context.getBean(LockedRuns.class).names()).containsExactly("plain-report");
        }
        assertThat(term.whenEnded().get(WITHIN.toSeconds(), TimeUnit.SECONDS))
                .as("released by the close")
                .isEqualTo(LeaseEnd.RELEASED);
        assertThat(jobs.sweep()).as("skipped once the runner stopped").isNull();
    }

    /** What an application declares without the auto-configuration. */
    @Configuration(proxyBeanMethods = false)
    static class Wiring {

        @Bean(destroyMethod = "close")
        LockTable lockTable() {
            return LockTable.inMemory("plain-" + UUID.randomUUID()).build();
        }

        @Bean
        LeaderRunner leaderRunner(LockTable locks) {
            return new LeaderRunner(locks);
        }

        @Bean
        LockedRuns lockedRuns(LockTable locks) {
            return new LockedRuns(locks);
        }

        @Bean
        static LockAnnotationAdvisor lockAnnotationAdvisor() {
            return new LockAnnotationAdvisor(() -> Duration.ofSeconds(30));
        }

        @Bean
        static DefaultAdvisorAutoProxyCreator autoProxyCreator() {
            return new DefaultAdvisorAutoProxyCreator();
        }

        @Bean
        Jobs jobs() {
            return new Jobs();
        }
    }

    static class Jobs {

        @LeaderOnly("plain-sweeper")
        public Long sweep() {
            return Lease.current().orElseThrow().fencingToken();
        }

        @LockedRun("plain-report")
        public String report() {
            return Lease.current().orElseThrow().name();
        }
    }
}
