package io.locktable.shedlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.locktable.LockTable;
import io.locktable.shedlock.LockTableLockProvider;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Conditions and back-off of the auto-configuration. No engine: building a {@link LockTable} sends no request, and
 * these tests take no lock.
 */
class LockTableShedLockAutoConfigurationTest {

    private final DynamoDbClient client = DynamoDbClient.builder()
            .endpointOverride(URI.create("http://127.0.0.1:9")) // never reached
            .region(Region.US_EAST_1)
            .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
            .build();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LockTableShedLockAutoConfiguration.class));

    @AfterEach
    void closeClient() {
        client.close();
    }

    private LockTable lockTable() {
        return LockTable.builder(client, "Locks", "pk").build();
    }

    @Test
    void isRegisteredAsAnAutoConfiguration() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(LockTableShedLockAutoConfiguration.class.getName());
    }

    @Test
    void providesALockProviderOverTheContextsLockTable() {
        runner.withBean(LockTable.class, this::lockTable).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockProvider.class);
            assertThat(context.getBean(LockProvider.class))
                    .isInstanceOf(LockTableLockProvider.class)
                    .extracting(provider -> ((LockTableLockProvider) provider).lockTable())
                    .isSameAs(context.getBean(LockTable.class));
        });
    }

    @Test
    void backsOffForALockProviderOfTheUser() {
        LockProvider own = configuration -> Optional.empty();
        runner.withBean(LockTable.class, this::lockTable)
                .withBean("ownLockProvider", LockProvider.class, () -> own)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockProvider.class);
                    assertThat(context.getBean(LockProvider.class)).isSameAs(own);
                });
    }

    @Test
    void isAbsentWithoutALockTable() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
    }

    @Test
    void isAbsentWithTwoLockTablesAndNoPrimary() {
        runner.withBean("first", LockTable.class, this::lockTable)
                .withBean("second", LockTable.class, this::lockTable)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
    }

    @Test
    void isAbsentWithoutShedLockOnTheClassPath() {
        runner.withBean(LockTable.class, this::lockTable)
                .withClassLoader(new FilteredClassLoader(LockProvider.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockTableLockProvider.class));
    }

    @Test
    void isAbsentWhenLockTableIsDisabled() {
        runner.withBean(LockTable.class, this::lockTable)
                .withPropertyValues("locktable.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockProvider.class));
    }

    @Test
    void isClosedWithTheContext() {
        LockTableLockProvider[] provider = new LockTableLockProvider[1];
        runner.withBean(LockTable.class, this::lockTable)
                .run(context -> provider[0] = context.getBean(LockTableLockProvider.class));

        LockConfiguration config =
                new LockConfiguration(ClockProvider.now(), "report", Duration.ofSeconds(10), Duration.ZERO);
        assertThatThrownBy(() -> {
                    Optional<SimpleLock> lock = provider[0].lock(config);
                    lock.ifPresent(SimpleLock::unlock);
                })
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }
}
