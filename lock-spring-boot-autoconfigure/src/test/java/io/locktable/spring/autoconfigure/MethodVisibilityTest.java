package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * Which methods the proxy intercepts: a private {@code @Scheduled @LeaderOnly} (or {@code @LockedRun}) method fails
 * startup with the starter's description, not with Spring's message about a method "found on proxy" that "cannot be
 * delegated"; a package-private method is intercepted like a public one. The context has no lock table (so no
 * engine): every intercepted call is skipped, which is how a test tells that it was intercepted.
 */
class MethodVisibilityTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(LeaderOnlyAutoConfiguration.class, LockedRunAutoConfiguration.class))
            .withUserConfiguration(Scheduling.class);

    @Test
    void aPrivateScheduledLeaderOnlyMethodFailsStartupWithTheStartersDescription() {
        runner.withBean(PrivateLeaderOnly.class).run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
            assertThat(analysis.getDescription())
                    .isEqualTo("@LeaderOnly method " + PrivateLeaderOnly.class.getName() + ".sweep() is private: the"
                            + " proxy that checks the leadership cannot intercept it, so it would run on every"
                            + " instance.");
            assertThat(analysis.getAction())
                    .isEqualTo("Make it a public, protected or package-private instance method of the bean that is"
                            + " not final, called through the bean.");
        });
    }

    @Test
    void aPrivateScheduledLockedRunMethodFailsStartupWithTheStartersDescription() {
        runner.withBean(PrivateLockedRun.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("@LockedRun method " + PrivateLockedRun.class.getName() + ".report() is private:"));
    }

    @Test
    void aPrivateMethodBesideAnInterceptedOneFailsTheSameWay() {
        runner.withBean(PrivateBesidePublic.class)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith(
                                "@LeaderOnly method " + PrivateBesidePublic.class.getName() + ".sweep() is private:"));
    }

    @Test
    void aPackagePrivateMethodIsIntercepted() {
        runner.withBean(PackagePrivate.class).run(context -> {
            assertThat(context).hasNotFailed();
            PackagePrivate bean = context.getBean(PackagePrivate.class);
            assertThat(AopUtils.isCglibProxy(bean)).isTrue();
            assertThat(bean.lead()).as("skipped: no leader runner").isNull();
            assertThat(bean.run()).as("skipped: no LockedRuns").isNull();
            assertThat(bean.calls).isZero();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {}

    static class PrivateLeaderOnly {
        @Scheduled(fixedDelay = 60_000)
        @LeaderOnly("sweeper")
        private void sweep() {}
    }

    static class PrivateLockedRun {
        @Scheduled(fixedDelay = 60_000)
        @LockedRun("report")
        private void report() {}
    }

    static class PrivateBesidePublic {
        @LeaderOnly("other")
        public void other() {}

        @Scheduled(fixedDelay = 60_000)
        @LeaderOnly("sweeper")
        private void sweep() {}
    }

    static class PackagePrivate {
        int calls;

        @LeaderOnly("lead")
        String lead() {
            calls++;
            return "ran";
        }

        @LockedRun("run")
        String run() {
            calls++;
            return "ran";
        }
    }
}
