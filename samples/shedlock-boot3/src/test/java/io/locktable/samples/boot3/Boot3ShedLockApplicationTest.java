package io.locktable.samples.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.shedlock.LockTableLockProvider;
import io.locktable.shedlock.autoconfigure.LockTableShedLockAutoConfiguration;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import java.net.URI;
import java.time.Duration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * docs/migrating.md's Spring Boot 3 path, on Spring Boot 3.5 and lock-test's engine: the application writes the
 * {@code DynamoDbClient}, {@code LockTable} and {@code LockProvider} beans itself, with {@code lock-core} and {@code
 * lock-shedlock} and no starter, and its {@code @SchedulerLock} job runs under a LockTable lease.
 */
class Boot3ShedLockApplicationTest {

    @Test
    void theJobRunsUnderALockTableLeaseOnSpringBoot3() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        DynamoDbEngine engine = DynamoDbEngines.current();
        if (engine.isLocal()) { // the default credentials chain reads them; any do on a local engine
            System.setProperty("aws.accessKeyId", System.getProperty("aws.accessKeyId", "local"));
            System.setProperty("aws.secretAccessKey", System.getProperty("aws.secretAccessKey", "local"));
        }
        String table = engine.uniqueTableName("boot3");

        try (ConfigurableApplicationContext context = SpringApplication.run(
                Boot3ShedLockApplication.class,
                "--app.dynamodb.endpoint=" + engine.endpoint(),
                "--app.locks.table-name=" + table,
                "--app.locks.create-table=true",
                "--app.report.every=100ms")) {
            ReportJob job = context.getBean(ReportJob.class);
            await().atMost(Duration.ofSeconds(60)).until(() -> !job.tokens().isEmpty());

            assertThat(context.getBean(LockProvider.class)).isInstanceOf(LockTableLockProvider.class);
            long token = job.tokens().get(0);
            assertThat(token).as("the run's fencing token").isPositive();
            assertThat(context.getBean(LockTable.class).read("sales-report"))
                    .as("the lock item in the lock table")
                    .hasValueSatisfying(item -> assertThat(item.fencingToken()).isGreaterThanOrEqualTo(token));
        }
    }

    /**
     * lock-shedlock's auto-configuration loads on Spring Boot 3.5 too: with the {@code LockProvider} bean written, it
     * backs off (above); with only a {@code LockTable} bean, it provides the provider. No engine: nothing is locked.
     */
    @Test
    void lockShedLocksAutoConfigurationWorksOnSpringBoot3() {
        DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:9")) // never reached
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockTableShedLockAutoConfiguration.class))
                .withBean(
                        LockTable.class,
                        () -> LockTable.builder(client, "Locks", "pk").build())
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockTableLockProvider.class));
        client.close();
    }
}
