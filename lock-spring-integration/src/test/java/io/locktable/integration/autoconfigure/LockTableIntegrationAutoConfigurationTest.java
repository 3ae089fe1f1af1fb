package io.locktable.integration.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockTable;
import io.locktable.integration.LeaderEventBridge;
import io.locktable.integration.LockTableLockRegistry;
import io.locktable.spring.LeaderRunner;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.leader.event.LeaderEventPublisher;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

/** Conditions and back-off of the auto-configuration, over in-memory lock tables: no engine, no request. */
class LockTableIntegrationAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LockTableIntegrationAutoConfiguration.class));

    private static LockTable lockTable() {
        return LockTable.inMemory("si-" + UUID.randomUUID()).build();
    }

    @Test
    void isRegisteredAsAnAutoConfiguration() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(LockTableIntegrationAutoConfiguration.class.getName());
    }

    @Test
    void providesALockRegistryOverTheContextsLockTable() {
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
                    LockTableLockRegistry registry = context.getBean(LockTableLockRegistry.class);
                    assertThat(registry.lockTable()).isSameAs(context.getBean(LockTable.class));
                    assertThat(registry.leaseDuration()).isEqualTo(LockTableLockRegistry.DEFAULT_LEASE_DURATION);
                });
    }

    @Test
    void theLeaseIsTheStartersLeaseDuration() {
        io.locktable.spring.autoconfigure.LockTableProperties properties =
                new io.locktable.spring.autoconfigure.LockTableProperties();
        properties.setLeaseDuration(Duration.ofSeconds(7));
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .withBean(io.locktable.spring.autoconfigure.LockTableProperties.class, () -> properties)
                .run(context -> assertThat(
                                context.getBean(LockTableLockRegistry.class).leaseDuration())
                        .isEqualTo(Duration.ofSeconds(7)));
    }

    @Test
    void backsOffForALockRegistryOfTheUser() {
        DefaultLockRegistry own = new DefaultLockRegistry();
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .withBean("ownLockRegistry", LockRegistry.class, () -> own)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockRegistry.class);
                    assertThat(context.getBean(LockRegistry.class)).isSameAs(own);
                });
    }

    @Test
    void isAbsentWithoutALockTableOrWithTwo() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
        runner.withBean("first", LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .withBean("second", LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
    }

    @Test
    void isAbsentWithoutSpringIntegrationOnTheClassPath() {
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .withClassLoader(new FilteredClassLoader(LockRegistry.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockTableLockRegistry.class));
    }

    @Test
    void isAbsentWhenLockTableIsDisabled() {
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .withPropertyValues("locktable.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockRegistry.class));
    }

    @Test
    void theBridgeComesWithALeaderRunnerOnly() {
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .run(context -> assertThat(context).doesNotHaveBean(LeaderEventBridge.class));
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .withBean(LeaderRunner.class, () -> new LeaderRunner(lockTable()))
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LeaderEventBridge.class));
    }

    @Test
    void theBridgeBacksOffForOneOfTheUser() {
        LeaderEventBridge own = new LeaderEventBridge(new LeaderEventPublisher() {
            @Override
            public void publishOnGranted(Object source, org.springframework.integration.leader.Context c, String r) {}

            @Override
            public void publishOnRevoked(Object source, org.springframework.integration.leader.Context c, String r) {}

            @Override
            public void publishOnFailedToAcquire(
                    Object source, org.springframework.integration.leader.Context c, String r) {}
        });
        runner.withBean(LockTable.class, LockTableIntegrationAutoConfigurationTest::lockTable)
                .withBean(LeaderRunner.class, () -> new LeaderRunner(lockTable()))
                .withBean("ownBridge", LeaderEventBridge.class, () -> own)
                .run(context ->
                        assertThat(context.getBean(LeaderEventBridge.class)).isSameAs(own));
    }
}
