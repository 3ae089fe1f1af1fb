package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.locktable.LockTable;
import io.locktable.spring.test.Sweepers.ScheduledSweeper;
import io.locktable.spring.test.Sweepers.Sweeper;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.EngineCapability;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestContextManager;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

/**
 * An application's test that points the starter at lock-test's engine with {@code
 * LockTableTestProperties.register(registry)}, while its code sends the main README's fenced write: on an engine
 * without transactions (dynalite), the test fails with what was refused and the fix instead of passing with an ERROR
 * in the log. Each user's test below is a class of its own, run as JUnit runs it, through Spring's {@link
 * TestContextManager} and this module's listener from {@code META-INF/spring.factories}, on the real engine.
 */
class RefusedRequestsTest {

    @Test
    void aFencedWriteThatTheEngineRefusesFailsTheTestMethodWithTheOperationTheEngineAndTheFix() throws Exception {
        assumeTheEngineLacksTransactions();
        UserTestRun<SwallowingSweepTest> run = new UserTestRun<>(new SwallowingSweepTest(), "sweeps");

        run.before();
        run.test().sweeps();

        String expected = "The engine at " + DynamoDbEngines.current().endpoint() + " refused TransactWriteItems as"
                + " unsupported (UnknownOperationException): the code under test cannot do there what it does in"
                + " production, yet the test would pass (a @Scheduled job only logs an ERROR). It needs TRANSACTIONS:"
                + " register an engine that has it with LockTableTestProperties.register(registry,"
                + " EngineCapability.TRANSACTIONS) in the test's @DynamicPropertySource method (lock-test's moto when"
                + " no engine is selected), or run the tests with -Dlocktable.test.engine=moto (pip install"
                + " 'moto[server]')";
        assertThatThrownBy(run::afterTestMethod)
                .isInstanceOf(AssertionError.class)
                .hasMessage(expected);
        DynamoDbException caught = (DynamoDbException) run.test().sweeper.caught.get();
        assertThat(caught)
                .as("the application's code gets the engine's exception, its message saying the same")
                .isNotNull();
        assertThat(caught.awsErrorDetails().errorCode()).isEqualTo("UnknownOperationException");
        assertThat(caught.statusCode()).isEqualTo(400);
        assertThat(caught.getMessage()).startsWith(expected);
        assertThatCode(run::afterTestClass).as("each refusal is reported once").doesNotThrowAnyException();
    }

    @Test
    void aScheduledLeaderOnlyJobRefusedAfterTheTestMethodEndedFailsTheTestClass() throws Exception {
        assumeTheEngineLacksTransactions();
        UserTestRun<ScheduledSweepTest> run = new UserTestRun<>(new ScheduledSweepTest(), "startsUp");

        run.before();
        assertThatCode(run::afterTestMethod)
                .as("the job is held before its write: nothing was refused yet")
                .doesNotThrowAnyException();
        run.test().sweeper.gate().countDown();
        assertThat(run.test().sweeper.sent().await(30, TimeUnit.SECONDS))
                .as("the job sent its fenced write")
                .isTrue();

        assertThatThrownBy(run::afterTestClass)
                .as("checked before @DirtiesContext closes the context")
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith(
                        "The engine at " + DynamoDbEngines.current().endpoint()
                                + " refused TransactWriteItems as unsupported (UnknownOperationException)")
                .hasMessageContaining("LockTableTestProperties.register(registry, EngineCapability.TRANSACTIONS)")
                .hasMessageContaining("-Dlocktable.test.engine=moto");
        assertThat(run.manager.getTestContext().hasApplicationContext())
                .as("closed by @DirtiesContext")
                .isFalse();
    }

    @Test
    void aServiceConnectionTestIsWatchedWhenItSetsTheProperty() throws Exception {
        assumeTheEngineLacksTransactions();
        UserTestRun<ServiceConnectionSweepTest> run = new UserTestRun<>(new ServiceConnectionSweepTest(), "sweeps");

        run.before();
        run.test().sweeps();

        assertThatThrownBy(run::afterTestMethod)
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith(
                        "The engine at " + DynamoDbEngines.current().endpoint()
                                + " refused TransactWriteItems as unsupported (UnknownOperationException)");
        run.afterTestClass();
    }

    @Test
    void aContextWhoseRequestsAllSucceedOrFailForOtherReasonsIsNotFailed() throws Exception {
        UserTestRun<PlainRequestsTest> run = new UserTestRun<>(new PlainRequestsTest(), "writesAndReads");

        run.before();
        run.test().writesAndReads();

        assertThatCode(run::afterTestMethod).doesNotThrowAnyException();
        assertThatCode(run::afterTestClass).doesNotThrowAnyException();
    }

    @Test
    void aContextThatWasNeverLoadedIsNotLoadedToBeChecked() throws Exception {
        TestContextManager manager = new TestContextManager(PlainRequestsTest.class);

        manager.beforeTestClass();
        manager.afterTestClass();

        assertThat(manager.getTestContext().hasApplicationContext()).isFalse();
    }

    @Test
    void theFixNamesTheCapabilityOfTheOperationWhereLockTestHasOne() {
        assertThat(RefusedRequests.fix("TransactGetItems"))
                .contains("LockTableTestProperties.register(registry, EngineCapability.TRANSACTIONS)");
        assertThat(RefusedRequests.fix("UpdateTimeToLive"))
                .startsWith("It needs TIME_TO_LIVE: ")
                .contains("LockTableTestProperties.register(registry, EngineCapability.TIME_TO_LIVE)");
        assertThat(RefusedRequests.fix("ExecuteStatement"))
                .isEqualTo("Use an engine that has ExecuteStatement: run the tests with -Dlocktable.test.engine=moto"
                        + " (pip install 'moto[server]')");
    }

    private static void assumeTheEngineLacksTransactions() {
        DynamoDbEngine engine = DynamoDbEngines.current();
        assumeFalse(
                engine.supports(EngineCapability.TRANSACTIONS),
                () -> "engine " + engine.name() + " has transactions: the fenced write is applied there, so no request"
                        + " is refused and no test is failed for one: skipped");
    }

    /** One test method of a user's test class, driven through the callbacks that JUnit's SpringExtension calls. */
    static final class UserTestRun<T> {
        final TestContextManager manager;
        private final T test;
        private final Method method;

        UserTestRun(T test, String methodName) throws NoSuchMethodException {
            this.manager = new TestContextManager(test.getClass());
            this.test = test;
            this.method = test.getClass().getDeclaredMethod(methodName);
        }

        T test() {
            return test;
        }

        void before() throws Exception {
            manager.beforeTestClass();
            manager.prepareTestInstance(test);
            manager.beforeTestMethod(test, method);
        }

        void afterTestMethod() throws Exception {
            manager.afterTestMethod(test, method, null);
        }

        void afterTestClass() throws Exception {
            manager.afterTestClass();
        }
    }

    /** Requests the engine has: a put and a read, and a read of a table that does not exist. */
    static class PlainRequests {
        private final LockTable locks;
        private final DynamoDbClient client;

        PlainRequests(LockTable locks, DynamoDbClient client) {
            this.locks = locks;
            this.client = client;
        }

        Map<String, AttributeValue> writeAndRead() {
            Map<String, AttributeValue> key = Map.of("pk", AttributeValue.fromS("PLAIN#1"));
            client.putItem(r -> r.tableName(locks.tableName()).item(key));
            assertThatThrownBy(() ->
                            client.getItem(r -> r.tableName("no-such-table").key(key)))
                    .isInstanceOf(ResourceNotFoundException.class);
            return client.getItem(r -> r.tableName(locks.tableName()).key(key).consistentRead(true))
                    .item();
        }
    }

    @SpringBootTest(classes = SwallowingSweepTest.App.class)
    @DirtiesContext
    static class SwallowingSweepTest {
        @DynamicPropertySource
        static void lockTable(DynamicPropertyRegistry registry) {
            LockTableTestProperties.register(registry);
        }

        @Autowired
        Sweeper sweeper;

        void sweeps() {
            sweeper.sweepOnce();
        }

        @SpringBootConfiguration
        @EnableAutoConfiguration
        @Import(Sweeper.class)
        static class App {}
    }

    @SpringBootTest(
            classes = SwallowingSweepTest.App.class,
            properties = {
                "locktable.table-name=RefusedRequestsTest",
                "locktable.create-table=true",
                "locktable.test.unsupported-requests=fail"
            })
    @DirtiesContext
    static class ServiceConnectionSweepTest {
        @ServiceConnection(name = "locktable")
        static final LockTableEngineContainer dynamodb = new LockTableEngineContainer();

        @Autowired
        Sweeper sweeper;

        void sweeps() {
            sweeper.sweepOnce();
        }
    }

    @SpringBootTest(classes = ScheduledSweepTest.App.class)
    @DirtiesContext
    static class ScheduledSweepTest {
        @DynamicPropertySource
        static void lockTable(DynamicPropertyRegistry registry) {
            LockTableTestProperties.register(registry);
        }

        @Autowired
        ScheduledSweeper sweeper;

        void startsUp() {}

        @SpringBootConfiguration
        @EnableAutoConfiguration
        @EnableScheduling
        @Import(ScheduledSweeper.class)
        static class App {}
    }

    @SpringBootTest(classes = PlainRequestsTest.App.class)
    @DirtiesContext
    static class PlainRequestsTest {
        @DynamicPropertySource
        static void lockTable(DynamicPropertyRegistry registry) {
            LockTableTestProperties.register(registry);
        }

        @Autowired
        PlainRequests requests;

        void writesAndReads() {
            assertThat(requests.writeAndRead()).containsKey("pk");
        }

        @SpringBootConfiguration
        @EnableAutoConfiguration
        @Import(PlainRequests.class)
        static class App {}
    }
}
