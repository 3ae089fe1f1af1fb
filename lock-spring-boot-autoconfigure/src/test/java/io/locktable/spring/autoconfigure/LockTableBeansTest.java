package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockTable;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Which {@code DynamoDbClient} the locks use when the context has several, on the engine: the requests of each client
 * are noted, so a test tells which one served the locks. How the auto-configuration backs off for lock tables of the
 * user's, the customizers of the builder and the switch are in {@link LockTableBackOffTest}, without an engine.
 */
@DynamoDbEngineTest
class LockTableBeansTest {

    private final ApplicationContextRunner runner;

    LockTableBeansTest(DynamoDbEngine engine, TestTable table) {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(StarterAutoConfigurations.WITH_ACTUATOR)
                .withBean(Clients.class, () -> new Clients(engine))
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

    /** Creates engine clients that record the operations each one sends, by the name given. */
    static final class Clients {
        final Map<String, List<String>> operations = new ConcurrentHashMap<>();
        final DynamoDbEngine engine;

        Clients(DynamoDbEngine engine) {
            this.engine = engine;
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
}
