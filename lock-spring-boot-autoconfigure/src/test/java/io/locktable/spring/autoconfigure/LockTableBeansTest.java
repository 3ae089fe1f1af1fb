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
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.autoproxy.AbstractAutoProxyCreator;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import org.springframework.core.annotation.Order;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Which {@code DynamoDbClient} the locks use when the context has several, and how the auto-configuration backs off
 * for lock tables of the user's; the customizers of the builder.
 */
@DynamoDbEngineTest
class LockTableBeansTest {

    private final ApplicationContextRunner runner;

    LockTableBeansTest(DynamoDbEngine engine, TestTable table) {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockTableActuatorAutoConfiguration.class,
                        LockTableMetricsAutoConfiguration.class,
                        LockTableHealthAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .withBean(Clients.class, () -> new Clients(engine, table))
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=2s",
                        "management.endpoints.web.exposure.include=locks");
    }

    @Test
    void twoClientsWithoutAPrimaryNorAMarkMeanNoLockTableRatherThanAFailure() {
        runner.withUserConfiguration(TwoClients.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context)
                    .doesNotHaveBean(LockTable.class)
                    .doesNotHaveBean(LeaderRunner.class)
                    .doesNotHaveBean(LocksEndpoint.class)
                    .doesNotHaveBean(LockTableMetrics.class)
                    .doesNotHaveBean(LockTableHealthIndicator.class);
            assertThat(context).hasSingleBean(LockAnnotationAdvisor.class);
            assertThat(context.getBean(Clients.class).operations).isEmpty();
        });
    }

    @Test
    void thePrimaryClientServesTheLocks() {
        runner.withUserConfiguration(TwoClients.class, PrimaryClient.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockTable.class).hasSingleBean(LeaderRunner.class);
            assertThat(context.getBean(Clients.class).operations.keySet()).containsExactly("primary");
        });
    }

    @Test
    void theMarkedClientServesTheLocksEvenBesideAPrimaryOne() {
        runner.withUserConfiguration(TwoClients.class, PrimaryClient.class, MarkedClient.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTable.class);
                    assertThat(context.getBean(Clients.class).operations.keySet())
                            .containsExactly("marked");
                    assertThat(context.getBean(DynamoDbClient.class))
                            .as("plain injection still gets the primary client")
                            .isSameAs(context.getBean("primary"));
                });
    }

    @Test
    void aMarkedClientThatIsNoDefaultCandidateLeavesTheApplicationItsOwnClient() {
        runner.withUserConfiguration(ApplicationClient.class, MarkedClientForLocksOnly.class)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(LockTable.class);
                    assertThat(context.getBean(Clients.class).operations.keySet())
                            .containsExactly("locks-only");
                    assertThat(context.getBean(DynamoDbClient.class)).isSameAs(context.getBean("application"));
                });
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
        runner.withUserConfiguration(ApplicationClient.class, Customizers.class)
                .withPropertyValues("locktable.holder=from-properties")
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

    /** Creates engine clients that record the operations each one sends, by the name given. */
    static final class Clients {
        final Map<String, List<String>> operations = new ConcurrentHashMap<>();
        final DynamoDbEngine engine;
        final TestTable table;

        Clients(DynamoDbEngine engine, TestTable table) {
            this.engine = engine;
            this.table = table;
        }

        DynamoDbClient create(String name) {
            ExecutionInterceptor recorder = new ExecutionInterceptor() {
                @Override
                public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                    operations
                            .computeIfAbsent(name, n -> new CopyOnWriteArrayList<>())
                            .add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
                }
            };
            return engine.newClient(o -> o.addExecutionInterceptor(recorder));
        }

        LockTable lockTable(DynamoDbClient client) {
            return LockTable.builder(client, table.name(), table.partitionKey())
                    .sortKey(table.sortKey().orElseThrow())
                    .build();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoClients {
        @Bean
        DynamoDbClient first(Clients clients) {
            return clients.create("first");
        }

        @Bean
        DynamoDbClient second(Clients clients) {
            return clients.create("second");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryClient {
        @Bean
        @Primary
        DynamoDbClient primary(Clients clients) {
            return clients.create("primary");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MarkedClient {
        @Bean
        @LockTableDynamoDbClient
        DynamoDbClient marked(Clients clients) {
            return clients.create("marked");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ApplicationClient {
        @Bean
        DynamoDbClient application(Clients clients) {
            return clients.create("application");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MarkedClientForLocksOnly {
        @Bean(defaultCandidate = false)
        @LockTableDynamoDbClient
        DynamoDbClient locksOnly(Clients clients) {
            return clients.create("locks-only");
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoLockTables {
        @Bean(destroyMethod = "close")
        LockTable orders(Clients clients, DynamoDbClient client) {
            return clients.lockTable(client);
        }

        @Bean(destroyMethod = "close")
        LockTable billing(Clients clients, DynamoDbClient client) {
            return clients.lockTable(client);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryLockTable {
        @Bean(destroyMethod = "close")
        @Primary
        LockTable main(Clients clients, DynamoDbClient client) {
            return clients.lockTable(client);
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
