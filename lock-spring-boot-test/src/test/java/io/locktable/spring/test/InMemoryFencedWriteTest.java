package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.locktable.spring.test.RefusedRequestsTest.UserTestRun;
import io.locktable.spring.test.Sweepers.ScheduledSweeper;
import io.locktable.spring.test.Sweepers.Sweeper;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * An application's test in the in-memory mode ({@code locktable.test.in-memory=true}) whose code sends the main
 * README's fenced write, {@code client.transactWriteItems(r -> r.transactItems(lease.heldCheck(), ...))}, through the
 * starter's client pointed at a real endpoint (lock-test's engine): the lease is in memory, so the write could never
 * apply; the test fails with what was sent and the ways that work, instead of passing with an ERROR in the log, and
 * nothing is sent. Each user's test is run as JUnit runs it, through Spring's test context and this module's
 * listener.
 */
class InMemoryFencedWriteTest {

    @Test
    void aFencedWriteThroughTheStartersClientFailsTheTestMethodAndIsNotSent() throws Exception {
        UserTestRun<SwallowingInMemorySweepTest> run = new UserTestRun<>(new SwallowingInMemorySweepTest(), "sweeps");

        run.before();
        run.test().sweeps();

        String expected = "In the in-memory test mode (locktable.test.in-memory=true), the code under test sent a"
                + " fenced write: a TransactWriteItems with the held check of lock 'order-sweeper' (lease.heldCheck())"
                + " through the starter's DynamoDbClient, to "
                + DynamoDbEngines.current().endpoint() + ". That lock"
                + " is in this JVM's memory, in no table there, so the write cannot apply as it does in production,"
                + " yet the test would pass (a @Scheduled job only logs an ERROR); it was not sent. Write it with"
                + " lease.transactWrite(items), which the in-memory mode serves (it checks the lease and keeps nothing"
                + " of the items); or replace the bean that writes, in the test; or test the write on an engine, with"
                + " LockTableTestProperties.register(registry, EngineCapability.TRANSACTIONS) in a"
                + " @DynamicPropertySource method and without locktable.test.in-memory";
        assertThatThrownBy(run::afterTestMethod)
                .isInstanceOf(AssertionError.class)
                .hasMessage(expected);
        SdkException caught = run.test().sweeper.caught.get();
        assertThat(caught)
                .as("the application's code gets a client-side exception: no engine answered, nothing was sent")
                .isInstanceOf(SdkClientException.class)
                .hasMessageContaining(expected);
        assertThatCode(run::afterTestClass).as("each write is reported once").doesNotThrowAnyException();
    }

    @Test
    void theQuickStartsScheduledLeaderOnlyJobFailsTheTestClassWhenItWritesAfterTheMethod() throws Exception {
        UserTestRun<ScheduledInMemorySweepTest> run = new UserTestRun<>(new ScheduledInMemorySweepTest(), "startsUp");

        run.before();
        assertThatCode(run::afterTestMethod)
                .as("the job is held before its write: nothing was sent yet")
                .doesNotThrowAnyException();
        run.test().sweeper.gate().countDown();
        assertThat(run.test().sweeper.sent().await(30, TimeUnit.SECONDS))
                .as("the job sent its fenced write")
                .isTrue();

        assertThatThrownBy(run::afterTestClass)
                .isInstanceOf(AssertionError.class)
                .hasMessageStartingWith("In the in-memory test mode (locktable.test.in-memory=true), the code under"
                        + " test sent a fenced write: a TransactWriteItems with the held check of lock 'order-sweeper'")
                .hasMessageContaining("lease.transactWrite(items)");
    }

    @Test
    void aFencedWriteThroughTheLeaseIsServedInMemory() throws Exception {
        UserTestRun<LeaseWriteInMemorySweepTest> run = new UserTestRun<>(new LeaseWriteInMemorySweepTest(), "sweeps");

        run.before();
        run.test().sweeps();

        assertThatCode(run::afterTestMethod).doesNotThrowAnyException();
        assertThatCode(run::afterTestClass).doesNotThrowAnyException();
    }

    /** lock-test's engine as the endpoint the starter's client would send to: a real one, never AWS. */
    static void realEndpoint(DynamicPropertyRegistry registry) {
        DynamoDbEngine engine = DynamoDbEngines.current();
        registry.add("locktable.dynamodb.endpoint", () -> engine.endpoint().toString());
        registry.add("locktable.dynamodb.region", () -> "us-east-1");
        if (engine.isLocal()) {
            System.setProperty("aws.accessKeyId", System.getProperty("aws.accessKeyId", "local"));
            System.setProperty("aws.secretAccessKey", System.getProperty("aws.secretAccessKey", "local"));
        }
    }

    @SpringBootTest(classes = SwallowingInMemorySweepTest.App.class, properties = "locktable.test.in-memory=true")
    @DirtiesContext
    static class SwallowingInMemorySweepTest {
        @DynamicPropertySource
        static void endpoint(DynamicPropertyRegistry registry) {
            realEndpoint(registry);
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

    @SpringBootTest(classes = SwallowingInMemorySweepTest.App.class, properties = "locktable.test.in-memory=true")
    @DirtiesContext
    static class LeaseWriteInMemorySweepTest {
        @DynamicPropertySource
        static void endpoint(DynamicPropertyRegistry registry) {
            realEndpoint(registry);
        }

        @Autowired
        Sweeper sweeper;

        void sweeps() {
            sweeper.sweepThroughTheLease();
        }
    }

    @SpringBootTest(classes = ScheduledInMemorySweepTest.App.class, properties = "locktable.test.in-memory=true")
    @DirtiesContext
    static class ScheduledInMemorySweepTest {
        @DynamicPropertySource
        static void endpoint(DynamicPropertyRegistry registry) {
            realEndpoint(registry);
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
}
