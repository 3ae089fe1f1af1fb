package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Creating the beans sends no request: the table is created and checked once every bean exists, before anything
 * starts, and a missing table still fails startup with the property's name.
 */
@DynamoDbEngineTest
class StartupRequestsTest {

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final SentOperations sent = new SentOperations();
    private final ApplicationContextRunner runner;

    /** A bean of the application that needs the lock table: it notes what was sent until it was made. */
    static final class SentBeforeMe {
        private final List<String> operations;

        SentBeforeMe(LockTable lockTable, SentOperations sent) {
            this.operations = List.copyOf(sent.operations());
        }

        List<String> operations() {
            return operations;
        }
    }

    StartupRequestsTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LockTableAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> o.addExecutionInterceptor(sent)))
                .withBean(SentOperations.class, () -> sent)
                .withBean(SentBeforeMe.class)
                .withPropertyValues("locktable.sort-key=" + table.sortKey().orElse(""));
    }

    @Test
    void theTableIsCheckedOnceEveryBeanIsCreatedNotWhileTheLockTableIs() {
        runner.withPropertyValues("locktable.table-name=" + table.name()).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(SentBeforeMe.class).operations())
                    .as("sent while the beans were created")
                    .isEmpty();
            assertThat(sent.operations()).as("sent once they were").containsExactly("DescribeTable");
        });
    }

    @Test
    void aMissingTableIsCreatedOnceEveryBeanIsCreated() {
        String missing = engine.uniqueTableName("created-at-startup");
        try {
            runner.withPropertyValues("locktable.table-name=" + missing, "locktable.create-table=true")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context.getBean(SentBeforeMe.class).operations())
                                .isEmpty();
                        assertThat(sent.operations()).contains("CreateTable");
                    });
        } finally {
            engine.deleteTable(missing);
        }
    }

    @Test
    void aLazyContextStillChecksTheTableAtStartup() {
        String missing = engine.uniqueTableName("missing-lazy");
        runner.withInitializer(context ->
                        context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
                .withPropertyValues("locktable.table-name=" + missing)
                .run(context -> assertThat(
                                Analyses.of(context.getStartupFailure()).getDescription())
                        .startsWith("The lock table '" + missing + "' (locktable.table-name) does not exist"));
    }

    @Test
    void aMissingTableStillFailsStartupNamingTheProperty() {
        String missing = engine.uniqueTableName("missing");
        runner.withPropertyValues("locktable.table-name=" + missing).run(context -> {
            assertThat(context).hasFailed();
            assertThat(Analyses.of(context.getStartupFailure()).getDescription())
                    .startsWith("The lock table '" + missing + "' (locktable.table-name) does not exist");
        });
    }
}
