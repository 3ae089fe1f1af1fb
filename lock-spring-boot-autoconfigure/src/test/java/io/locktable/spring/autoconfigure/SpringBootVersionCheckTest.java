package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.bootstrap.DefaultBootstrapContext;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.context.ApplicationListener;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.mock.env.MockEnvironment;

/** The Spring Boot versions the starter accepts, and the one message it stops with on the others. */
class SpringBootVersionCheckTest {

    @Test
    void acceptsSpringBoot4() {
        assertThat(SpringBootVersionCheck.problem("4.0.7")).isEmpty();
        assertThat(SpringBootVersionCheck.problem("4.1.2")).isEmpty();
        assertThat(SpringBootVersionCheck.problem("4.2.0-M1")).isEmpty();
        assertThat(SpringBootVersionCheck.problem(SpringBootVersion.getVersion()))
                .as("the version this build runs")
                .isEmpty();
    }

    @Test
    void refusesOtherMajorVersionsNamingTheSupportedOnes() {
        assertThat(SpringBootVersionCheck.problem("3.5.6"))
                .contains("LockTable's Spring Boot starter supports Spring Boot 4.0 and 4.1, but this application runs"
                        + " Spring Boot 3.5.6.");
        assertThat(SpringBootVersionCheck.problem("2.7.18")).isPresent();
        assertThat(SpringBootVersionCheck.problem("5.0.0")).isPresent();
    }

    @Test
    void saysNothingWhenTheVersionCannotBeTold() {
        assertThat(SpringBootVersionCheck.problem(null)).isEmpty();
        assertThat(SpringBootVersionCheck.problem("unknown")).isEmpty();
    }

    @Test
    void stopsStartupWithAFailureAnalysisUnlessTheStarterIsSwitchedOff() {
        SpringBootVersionCheck onBoot3 = new SpringBootVersionCheck(() -> "3.5.6");

        Throwable failure = catchThrowable(() -> onBoot3.onApplicationEvent(prepared(new MockEnvironment())));
        FailureAnalysis analysis = Analyses.of(failure);
        assertThat(analysis.getDescription())
                .contains("supports Spring Boot 4.0 and 4.1")
                .contains("3.5.6");
        assertThat(analysis.getAction()).startsWith("Run the application on Spring Boot 4.0 or 4.1");

        assertThatCode(() -> onBoot3.onApplicationEvent(
                        prepared(new MockEnvironment().withProperty("locktable.enabled", "false"))))
                .doesNotThrowAnyException();
        assertThatCode(() ->
                        new SpringBootVersionCheck(() -> "4.1.2").onApplicationEvent(prepared(new MockEnvironment())))
                .doesNotThrowAnyException();
    }

    @Test
    void isRegisteredAsAnApplicationListener() {
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
                        .load(ApplicationListener.class))
                .anySatisfy(listener -> assertThat(listener).isInstanceOf(SpringBootVersionCheck.class));
    }

    private static ApplicationEnvironmentPreparedEvent prepared(MockEnvironment environment) {
        return new ApplicationEnvironmentPreparedEvent(
                new DefaultBootstrapContext(), new SpringApplication(), new String[0], environment);
    }
}
