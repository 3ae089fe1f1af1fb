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
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Conditions and back-off of the auto-configuration. No engine: building a {@link LockTable} sends no request, and
 * these tests take no lock.
 */
@ExtendWith(OutputCaptureExtension.class)
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

    /** A ShedLock user who added lock-shedlock and kept the old provider's bean is told, once, which one locks. */
    @Test
    void tellsAtStartupWhichProviderWinsAndWhatToDelete(CapturedOutput output) {
        runner.withBean(LockTable.class, this::lockTable)
                .withBean("jdbcLockProvider", JdbcLikeLockProvider.class, JdbcLikeLockProvider::new)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockProvider.class));

        String expected =
                "LockTable's ShedLock provider backs off: @SchedulerLock jobs lock through your LockProvider bean 'jdbcLockProvider' ("
                        + JdbcLikeLockProvider.class.getName()
                        + "), not through LockTable's table 'Locks'. To switch to"
                        + " LockTable, delete that bean (and its provider's dependency); lock-shedlock then provides the"
                        + " LockProvider over the starter's LockTable, which needs locktable.table-name (and"
                        + " locktable.dynamodb.region, or locktable.dynamodb.endpoint for a local engine). To stay on your"
                        + " provider, remove lock-shedlock.";
        assertThat(output.getOut().lines().filter(line -> line.contains("LockTable's ShedLock provider")))
                .singleElement()
                .satisfies(line -> assertThat(line).contains(" INFO ").endsWith(expected));
    }

    @Test
    void saysNothingWhenItProvidesTheLockProviderOrTheUsersIsLockTables(CapturedOutput output) {
        runner.withBean(LockTable.class, this::lockTable)
                .run(context -> assertThat(context).hasSingleBean(LockTableLockProvider.class));
        runner.withBean(LockTable.class, this::lockTable)
                .withBean("lockProvider", LockTableLockProvider.class)
                .run(context -> assertThat(context).hasSingleBean(LockProvider.class));

        assertThat(output.getOut()).doesNotContain("LockTable's ShedLock provider");
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

    /** Stands for a provider of another store, such as ShedLock's JDBC one, which the user had before. */
    static final class JdbcLikeLockProvider implements LockProvider {
        @Override
        public Optional<SimpleLock> lock(LockConfiguration lockConfiguration) {
            return Optional.empty();
        }
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
