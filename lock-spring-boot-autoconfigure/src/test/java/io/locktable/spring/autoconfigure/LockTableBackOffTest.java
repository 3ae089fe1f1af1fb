package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockTable;
import io.locktable.LockTableOptions;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockAnnotationAdvisor;
import io.locktable.spring.actuate.LockTableHealthIndicator;
import io.locktable.spring.actuate.LockTableMetrics;
import io.locktable.spring.actuate.LocksEndpoint;
import io.locktable.spring.test.LockTableTestMode;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.autoproxy.AbstractAutoProxyCreator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.annotation.Order;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * How the auto-configuration backs off for lock tables of the user's, the customizers of the builder, and the switch
 * {@code locktable.enabled}. None of it sends a request, so no engine: the user's lock tables are in memory, beside a
 * client of the application's that nothing answers (so the starter backs off for the tables, not for want of a
 * client); the customizers adjust the starter's table in the in-memory test mode. Which client serves the locks is in
 * {@link LockTableBeansTest}, on the engine.
 */
class LockTableBackOffTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(StarterAutoConfigurations.WITH_ACTUATOR)
            .withPropertyValues(
                    "locktable.table-name=Locks",
                    "locktable.lease-duration=2s",
                    "management.endpoints.web.exposure.include=locks");

    /** A lock table of the user's, in memory, in a table of its own. */
    static LockTable inMemoryTable() {
        return LockTable.inMemory("user-locks-" + UUID.randomUUID()).build();
    }

    /** The application's client, of an endpoint where nothing listens: nothing is sent through it here. */
    @Configuration(proxyBeanMethods = false)
    static class ApplicationClient {
        @Bean
        DynamoDbClient application() {
            return UnansweredClients.sync();
        }
    }

    @Test
    void lockTablesOfTheUsersForTwoTablesMakeTheStarterBackOffWithoutFailing() {
        runner.withUserConfiguration(ApplicationClient.class, TwoLockTables.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBeansOfType(LockTable.class)).containsOnlyKeys("orders", "billing");
                    assertThat(context)
                            .doesNotHaveBean(LeaderRunner.class)
                            .doesNotHaveBean(LocksEndpoint.class)
                            .doesNotHaveBean(LockTableMetrics.class)
                            .doesNotHaveBean(LockTableHealthIndicator.class);
                });
    }

    @Test
    void aPrimaryLockTableOfTheUsersIsTheOneTheStarterLeadsOn() {
        runner.withUserConfiguration(ApplicationClient.class, TwoLockTables.class, PrimaryLockTable.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LockTable primary = context.getBean("main", LockTable.class);
                    assertThat(context.getBean(LeaderRunner.class).lockTable()).isSameAs(primary);
                    assertThat(context.getBean(LocksEndpoint.class).locks().table())
                            .isEqualTo(primary.tableName());
                    assertThat(context)
                            .hasSingleBean(LockTableMetrics.class)
                            .hasSingleBean(LockTableHealthIndicator.class);
                });
    }

    @Test
    void customizersAdjustTheBuilderInOrderAfterTheProperties() {
        runner.withUserConfiguration(Customizers.class)
                .withPropertyValues(LockTableTestMode.ON, "locktable.holder=from-properties")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Customizers.class).applied).containsExactly("first", "second");
                    assertThat(context.getBean(LockTable.class).options().holder())
                            .contains("second");
                });
    }

    @Test
    void switchedOffTheStarterContributesNothingAndLeaderOnlyMethodsArePlainMethods() {
        runner.withPropertyValues("locktable.enabled=false").withBean(Job.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context)
                    .doesNotHaveBean(DynamoDbClient.class)
                    .doesNotHaveBean(LockTable.class)
                    .doesNotHaveBean(LockTableProperties.class)
                    .doesNotHaveBean(LeaderRunner.class)
                    .doesNotHaveBean(LockAnnotationAdvisor.class)
                    .doesNotHaveBean(LocksEndpoint.class)
                    .doesNotHaveBean(LockTableMetrics.class)
                    .doesNotHaveBean(LockTableHealthIndicator.class);
            assertThat(context.getBeanNamesForType(AbstractAutoProxyCreator.class))
                    .isEmpty();
            assertThat(context.getBean(Job.class).run()).isEqualTo("ran");
        });
    }

    /** A bean with a {@code @LeaderOnly} method. */
    public static class Job {
        @LeaderOnly("switched-off")
        public String run() {
            return "ran";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoLockTables {
        @Bean(destroyMethod = "close")
        LockTable orders() {
            return inMemoryTable();
        }

        @Bean(destroyMethod = "close")
        LockTable billing() {
            return inMemoryTable();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryLockTable {
        @Bean(destroyMethod = "close")
        @Primary
        LockTable main() {
            return inMemoryTable();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {
        final List<String> applied = new CopyOnWriteArrayList<>();

        @Bean
        @Order(2)
        LockTableBuilderCustomizer second() {
            return builder -> {
                applied.add("second");
                builder.options(LockTableOptions.builder().holder("second").build());
            };
        }

        @Bean
        @Order(1)
        LockTableBuilderCustomizer first() {
            return builder -> applied.add("first");
        }
    }
}
