package io.locktable.spring.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.LockTableHealthIndicator;
import io.locktable.spring.actuate.LocksEndpoint;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableActuatorAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableHealthAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableMetricsAutoConfiguration;
import io.locktable.spring.autoconfigure.LockedRunAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The test mode {@code locktable.test.in-memory}: with this module on the class path, the starter's lock table is in
 * memory and everything else works over it as in production: a {@code @LeaderOnly} call runs with its term's lease,
 * a {@code @LockedRun} call under a lock of its own, the endpoint and the meters tell of them. Nothing is sent for the
 * locks: the client points at a port where nothing answers, {@code locktable.create-table=true} is set, and every
 * context starts at once. Without the marker class (as in production), the property changes nothing. It needs no
 * engine, so it starts none.
 */
class InMemoryTestModeTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableDynamoDbClientAutoConfiguration.class,
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class,
                    LockTableActuatorAutoConfiguration.class,
                    LockTableMetricsAutoConfiguration.class,
                    LockTableHealthAutoConfiguration.class,
                    LockTableTestModeAutoConfiguration.class))
            .withPropertyValues(
                    "locktable.dynamodb.endpoint=http://127.0.0.1:9", // nothing answers: a request would fail
                    "locktable.create-table=true", // no table to create: nothing is sent
                    "management.endpoints.web.exposure.include=locks")
            .withBean(Jobs.class);

    @Test
    void theCallsRunWithRealLeasesOverAnInMemoryTable() {
        runner.withPropertyValues(LockTableTestMode.PROPERTY + "=true").run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(LockTable.class)
                    .hasSingleBean(LeaderRunner.class)
                    .hasSingleBean(LockedRuns.class)
                    .as("built for the application's beans, which inject it; building it sends nothing")
                    .hasSingleBean(DynamoDbClient.class);
            assertThat(context.getBean(LockTable.class).tableName()).startsWith("locktable-in-memory-");
            Jobs jobs = context.getBean(Jobs.class);
            Lease term = context.getBean(LeaderRunner.class)
                    .lease("lead")
                    .orElseThrow(() -> new AssertionError("the start waits until this instance leads"));

            assertThat(jobs.lead()).as("the term's lease, current in the call").containsSame(term);
            Lease run = jobs.run().orElseThrow();
            assertThat(run.name()).isEqualTo("run");
            assertThat(run.isHeld()).as("released after the run").isFalse();
            assertThat(jobs.run().orElseThrow().fencingToken())
                    .as("a new lock each run, its token higher")
                    .isGreaterThan(run.fencingToken());
        });
    }

    @Test
    void theFirstNameOfThePropertyMeansTheSame() {
        runner.withPropertyValues(LockTableTestMode.FIRST_PROPERTY + "=true").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(LockTable.class).tableName()).startsWith("locktable-in-memory-");
            assertThat(context.getBean(Jobs.class).lead()).isPresent();
        });
    }

    @Test
    void theEndpointTheMetersAndTheHealthTellOfTheInMemoryLocks() {
        runner.withPropertyValues(LockTableTestMode.PROPERTY + "=true", "locktable.table-name=Orders")
                .withConfiguration(AutoConfigurations.of(
                        MetricsAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .run(context -> {
                    LocksEndpoint.LocksDescriptor locks =
                            context.getBean(LocksEndpoint.class).locks();
                    assertThat(locks.table()).startsWith("Orders-in-memory-");
                    assertThat(locks.leaders())
                            .singleElement()
                            .satisfies(leader -> assertThat(leader.name()).isEqualTo("lead"));
                    assertThat(locks.leases())
                            .singleElement()
                            .satisfies(lease -> assertThat(lease.leader()).isTrue());
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("locktable.leader")
                                    .tag("lock", "lead")
                                    .gauge()
                                    .value())
                            .isEqualTo(1.0);
                    assertThat(meters.get("locktable.leases.held").gauge().value())
                            .isEqualTo(1.0);
                    assertThat(context.getBean(LockTableHealthIndicator.class)
                                    .health()
                                    .getStatus())
                            .as("the table check passes on the in-memory table")
                            .isEqualTo(Status.UP);
                });
    }

    @Test
    void eachContextHasATableOfItsOwnSoCachedContextsBothLead() {
        runner.withPropertyValues(LockTableTestMode.PROPERTY + "=true", "locktable.table-name=Orders")
                .run(first -> runner.withPropertyValues(
                                LockTableTestMode.PROPERTY + "=true", "locktable.table-name=Orders")
                        .run(second -> {
                            assertThat(second.getBean(LockTable.class).tableName())
                                    .isNotEqualTo(first.getBean(LockTable.class).tableName());
                            assertThat(first.getBean(LeaderRunner.class).isLeader("lead"))
                                    .isTrue();
                            assertThat(second.getBean(LeaderRunner.class).isLeader("lead"))
                                    .as("not kept out by the first context, still open")
                                    .isTrue();
                        }));
    }

    @Test
    void aLockTableOfTheApplicationsIsUsedInstead() {
        LockTable own = LockTable.inMemory("own-locks-" + System.nanoTime()).build();
        try {
            runner.withPropertyValues(LockTableTestMode.PROPERTY + "=true")
                    .withBean(LockTable.class, () -> own)
                    .run(context -> {
                        assertThat(context).getBean(LockTable.class).isSameAs(own);
                        assertThat(context.getBean(Jobs.class)
                                        .lead()
                                        .orElseThrow()
                                        .owner())
                                .as("a lease of the application's table")
                                .startsWith(own.owner());
                    });
        } finally {
            own.close();
        }
    }

    @Test
    void theDeclarationsAreStillChecked() {
        runner.withPropertyValues(LockTableTestMode.PROPERTY + "=true")
                .withBean(Primitive.class)
                .run(context -> assertThat(context.getStartupFailure())
                        .hasMessageContaining("@LockedRun method " + Primitive.class.getName()
                                + ".count() returns the primitive int"));
    }

    @Test
    void withoutTheMarkerClassThePropertyChangesNothing() {
        runner.withPropertyValues(
                        LockTableTestMode.PROPERTY + "=true",
                        "locktable.table-name=Locks",
                        "locktable.create-table=false",
                        "locktable.dynamodb.region=us-east-1")
                .withClassLoader(new FilteredClassLoader(LockTableTestMode.class))
                .run(context -> {
                    assertThat(context)
                            .as("the starter builds its client and lock table as in production")
                            .hasNotFailed()
                            .hasSingleBean(DynamoDbClient.class)
                            .hasSingleBean(LockTable.class)
                            .hasSingleBean(LockedRuns.class);
                    assertThat(context.getBean(LockTable.class).tableName()).isEqualTo("Locks");
                });
    }

    /** Public, so that a proxy in a FilteredClassLoader can extend it. */
    public static class Jobs {
        @LeaderOnly(name = "lead", leaseDuration = "10s")
        public Optional<Lease> lead() {
            return Lease.current();
        }

        @LockedRun(name = "run", minHold = "0s")
        public Optional<Lease> run() {
            return Lease.current();
        }
    }

    static class Primitive {
        @LockedRun
        public int count() {
            return 1;
        }
    }
}
