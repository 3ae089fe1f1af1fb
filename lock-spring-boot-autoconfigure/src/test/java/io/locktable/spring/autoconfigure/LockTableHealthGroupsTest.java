package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.spring.actuate.LockTableHealthIndicator;
import io.locktable.spring.test.LockTableTestMode;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The {@code locktable} health indicator in Spring Boot's health groups, and its {@code locktable.health.*}. Wiring
 * only: the lock table is in memory, no engine.
 */
class LockTableHealthGroupsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockTableHealthAutoConfiguration.class,
                    ApplicationAvailabilityAutoConfiguration.class,
                    HealthContributorAutoConfiguration.class,
                    HealthContributorRegistryAutoConfiguration.class,
                    AvailabilityHealthContributorAutoConfiguration.class,
                    AvailabilityProbesAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class))
            .withPropertyValues(LockTableTestMode.ON, "management.endpoint.health.probes.enabled=true");

    @Test
    void isInTheMainGroupButNotInTheLivenessGroup() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockTableHealthIndicator.class);
            HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
            assertThat(groups.getPrimary().isMember("locktable")).isTrue();
            assertThat(groups.get("liveness")).isNotNull();
            assertThat(groups.get("liveness").isMember("locktable")).isFalse();
        });
    }

    @Test
    void invalidHealthSettingsAreDescribedWithTheProperty() {
        runner.withPropertyValues("locktable.health.down-after=-1")
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .isEqualTo("locktable.health.down-after is PT-1S; it must be zero or more."));
        runner.withPropertyValues(
                        "locktable.health.probe-interval=5",
                        "locktable.health.timeout=1",
                        "locktable.health.down-after=60")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTableProperties.Health health =
                            context.getBean(LockTableProperties.class).getHealth();
                    assertThat(health.getDownAfter()).isEqualTo(Duration.ofMinutes(1));
                });
    }

    /** The indicator sends no request, so these two are unused: an old configuration still starts, whatever they say. */
    @Test
    void theUnusedProbeSettingsStillBindSoThatOldConfigurationsStart() {
        runner.withPropertyValues("locktable.health.probe-interval=0", "locktable.health.timeout=20000")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockTableHealthIndicator.class));
    }
}
