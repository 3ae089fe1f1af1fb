package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.locktable.LockTable;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Two unmarked {@code DynamoDbClient} beans: the starter configures no lock table, and a bean that needs one stops
 * startup with a description naming both clients and saying how to mark one, instead of Spring's "required a bean
 * of type LockTable". No request is sent before that, so no engine is started.
 */
@ExtendWith(OutputCaptureExtension.class)
class MissingLockTableFailureAnalyzerTest {

    private final AtomicReference<ConfigurableListableBeanFactory> beanFactory = new AtomicReference<>();
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withInitializer(context -> beanFactory.set(context.getBeanFactory()))
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class))
            .withPropertyValues("locktable.table-name=Locks")
            .withUserConfiguration(TwoClients.class)
            .withBean("sweeper", NeedsLocks.class);

    @Test
    void aBeanThatNeedsTheLockTableBesideTwoUnmarkedClientsIsToldToMarkOne() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis analysis = Analyses.of(context.getStartupFailure(), beanFactory.get());
            assertThat(analysis.getDescription())
                    .isEqualTo("The bean 'sweeper' needs a LockTable, but no LockTable"
                            + " was configured: the context has 2 DynamoDbClient beans, 'orders' and 'billing', none"
                            + " of them marked @LockTableDynamoDbClient or @Primary, so the starter cannot tell which"
                            + " one the locks should use.");
            assertThat(analysis.getAction())
                    .startsWith("Mark the DynamoDbClient the locks should use with @LockTableDynamoDbClient")
                    .contains("or mark one of 'orders' and 'billing' with @Primary")
                    .endsWith("or define a LockTable bean of your own.");
        });
    }

    /**
     * A real start, with every failure analyzer Spring Boot registers: the report shows the starter's description,
     * not Spring's own "required a bean of type 'io.locktable.LockTable' that could not be found" (which is what it
     * shows with the starter's analyzer unregistered).
     */
    @Test
    void aRealStartReportsTheStartersDescriptionNotSpringsOwn(CapturedOutput output) {
        SpringApplicationBuilder application =
                new SpringApplicationBuilder(TwoClientsApp.class).web(WebApplicationType.NONE);

        assertThatThrownBy(() -> application.run("--locktable.table-name=Locks"))
                .hasMessageContaining("'sweeper'");

        assertThat(output.getOut())
                .contains("APPLICATION FAILED TO START")
                .contains("the context has 2 DynamoDbClient beans, 'orders' and 'billing', none of them marked"
                        + " @LockTableDynamoDbClient or @Primary")
                .contains("Mark the DynamoDbClient the locks should use with @LockTableDynamoDbClient")
                .doesNotContain("that could not be found");
    }

    /**
     * Issue 37: the application's own bean injects one of the two clients, and Spring's "expected single matching
     * bean" would be the first word; the starter's says what to mark, for the application and the locks.
     */
    @Test
    void aBeanOfTheApplicationThatInjectsOneOfTwoUnmarkedClientsIsToldWhatToMark() {
        new ApplicationContextRunner()
                .withInitializer(context -> beanFactory.set(context.getBeanFactory()))
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockedRunAutoConfiguration.class))
                .withPropertyValues("locktable.table-name=Locks")
                .withUserConfiguration(TwoClients.class)
                .withBean("orderRepository", NeedsAClient.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure(), beanFactory.get());
                    assertThat(analysis.getDescription())
                            .isEqualTo("The bean 'orderRepository' needs one DynamoDbClient, but the context has 2,"
                                    + " 'orders' and 'billing', none of them marked @Primary; for the same reason the"
                                    + " LockTable starter cannot tell which one the locks should use, so it configured"
                                    + " no LockTable.");
                    assertThat(analysis.getAction())
                            .startsWith("Mark the DynamoDbClient your code injects without a qualifier with @Primary:"
                                    + " the locks use it too. For the locks to use another one, mark that one with"
                                    + " @LockTableDynamoDbClient");
                });
    }

    /** The same in a real start, with every analyzer Spring Boot registers: the starter's report comes first. */
    @Test
    void aRealStartReportsWhatToMarkNotSpringsExpectedSingleMatchingBean(CapturedOutput output) {
        SpringApplicationBuilder application =
                new SpringApplicationBuilder(TwoClientsRepositoryApp.class).web(WebApplicationType.NONE);

        assertThatThrownBy(() -> application.run("--locktable.table-name=Locks"))
                .hasMessageContaining("'orderRepository'");

        assertThat(output.getOut())
                .contains("APPLICATION FAILED TO START")
                .contains("needs one DynamoDbClient, but the context has 2, 'orders' and 'billing', none of them"
                        + " marked @Primary")
                .contains("mark that one with @LockTableDynamoDbClient")
                .doesNotContain("Consider marking one of the beans as @Primary");
    }

    @Test
    void withOneMarkedPrimaryThereIsNoFailureToDescribe() {
        runner.withUserConfiguration(PrimaryClient.class)
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(LockTable.class));
    }

    @Test
    void twoUnmarkedAsyncClientsAndNoSynchronousOneAreNamedAsSuch() {
        new ApplicationContextRunner()
                .withInitializer(context -> beanFactory.set(context.getBeanFactory()))
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class,
                        LockedRunAutoConfiguration.class))
                .withPropertyValues("locktable.table-name=Locks")
                .withUserConfiguration(TwoAsyncClients.class)
                .withBean("sweeper", NeedsLocks.class)
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(beanFactory.get().getBeanNamesForType(DynamoDbClient.class))
                            .as("no synchronous client built beside the application's asynchronous ones")
                            .isEmpty();
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure(), beanFactory.get());
                    assertThat(analysis.getDescription())
                            .isEqualTo("The bean 'sweeper' needs a LockTable, but no LockTable was configured: the"
                                    + " context has 2 DynamoDbAsyncClient beans, 'events' and 'audit', none of them"
                                    + " marked @LockTableDynamoDbClient or @Primary, so the starter cannot tell"
                                    + " which one the locks should use.");
                    assertThat(analysis.getAction())
                            .startsWith("Mark the DynamoDbAsyncClient the locks should use with"
                                    + " @LockTableDynamoDbClient")
                            .contains("or mark one of 'events' and 'audit' with @Primary");
                });
    }

    /** Two asynchronous clients, of an endpoint where nothing listens, and no synchronous one. */
    @Configuration(proxyBeanMethods = false)
    static class TwoAsyncClients {
        @Bean(destroyMethod = "close")
        DynamoDbAsyncClient events() {
            return UnansweredClients.async();
        }

        @Bean(destroyMethod = "close")
        DynamoDbAsyncClient audit() {
            return UnansweredClients.async();
        }
    }

    /** The application's two clients, real ones, of an endpoint where nothing listens. */
    @Configuration(proxyBeanMethods = false)
    static class TwoClients {
        @Bean
        DynamoDbClient orders() {
            return UnansweredClients.sync();
        }

        @Bean
        DynamoDbClient billing() {
            return UnansweredClients.sync();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryClient {
        @Bean
        @Primary
        DynamoDbClient main() {
            return UnansweredClients.sync();
        }
    }

    /** An application with the starter's auto-configurations, two unmarked clients and a bean that needs locks. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        LockTableDynamoDbClientAutoConfiguration.class,
        LockTableAutoConfiguration.class,
        LeaderOnlyAutoConfiguration.class,
        LockedRunAutoConfiguration.class
    })
    @Import(TwoClients.class)
    static class TwoClientsApp {
        @Bean
        NeedsLocks sweeper(LockTable locks) {
            return new NeedsLocks(locks);
        }
    }

    /** An application with the starter's auto-configurations, two unmarked clients and a bean that injects one. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        LockTableDynamoDbClientAutoConfiguration.class,
        LockTableAutoConfiguration.class,
        LeaderOnlyAutoConfiguration.class,
        LockedRunAutoConfiguration.class
    })
    @Import(TwoClients.class)
    static class TwoClientsRepositoryApp {
        @Bean
        NeedsAClient orderRepository(DynamoDbClient client) {
            return new NeedsAClient(client);
        }
    }

    /** A bean of the application that injects a DynamoDbClient without a qualifier. */
    static class NeedsAClient {
        NeedsAClient(DynamoDbClient client) {}
    }

    /** A bean of the application that takes named locks. */
    static class NeedsLocks {
        NeedsLocks(LockTable locks) {}
    }
}
