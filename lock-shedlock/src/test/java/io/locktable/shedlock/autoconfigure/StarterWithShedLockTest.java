package io.locktable.shedlock.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.shedlock.LockTableLockProvider;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientAutoConfiguration;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The starter, ShedLock's Spring integration and this module together, against the real engine: the auto-configured
 * provider is over the starter's {@code LockTable}, and an {@code @SchedulerLock} method runs under its lease.
 */
@DynamoDbEngineTest
class StarterWithShedLockTest {

    static final String JOB = "report-" + UUID.randomUUID();

    private final ApplicationContextRunner runner;

    StarterWithShedLockTest(DynamoDbEngine engine, TestTable table) {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        // listed out of order: the auto-configuration orders itself after the starter's
                        LockTableShedLockAutoConfiguration.class,
                        AopAutoConfiguration.class,
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> {}))
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.leader.enabled=false",
                        "test.job-name=" + JOB);
    }

    /** A job as an application has it, unchanged from ShedLock with another provider. */
    static class Report {
        @SchedulerLock(name = "${test.job-name}")
        public Optional<Long> run() {
            LockAssert.assertLocked();
            return Optional.of(Lease.current().orElseThrow().fencingToken());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableSchedulerLock(defaultLockAtMostFor = "PT2S")
    static class Jobs {
        @Bean
        Report report() {
            return new Report();
        }
    }

    @Test
    void theProviderIsOverTheStartersLockTable() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockProvider.class);
            LockTableLockProvider provider = context.getBean(LockTableLockProvider.class);
            assertThat(provider.lockTable()).isSameAs(context.getBean(LockTable.class));
        });
    }

    @Test
    void aSchedulerLockJobRunsUnderALeaseAndIsSkippedWhileAnotherHolds() {
        runner.withUserConfiguration(Jobs.class).run(context -> {
            assertThat(context).hasNotFailed();
            Report report = context.getBean(Report.class);
            LockTable locks = context.getBean(LockTable.class);

            Optional<Long> token = report.run();

            assertThat(token).isPresent();
            assertThat(locks.read(JOB).orElseThrow().fencingToken()).isEqualTo(token.get());
            assertThat(locks.read(JOB).orElseThrow().leaseDuration())
                    .as("defaultLockAtMostFor is the lease")
                    .isEqualTo(Duration.ofSeconds(2));
            assertThat(locks.read(JOB).orElseThrow().owner()).as("released").isEmpty();

            SimpleLock held = context.getBean(LockProvider.class)
                    .lock(new LockConfiguration(ClockProvider.now(), JOB, Duration.ofSeconds(5), Duration.ZERO))
                    .orElseThrow();
            assertThat(report.run()).as("skipped while held").isEmpty();
            held.unlock();
            assertThat(report.run()).hasValueSatisfying(next -> assertThat(next).isGreaterThan(token.get()));
        });
    }
}
