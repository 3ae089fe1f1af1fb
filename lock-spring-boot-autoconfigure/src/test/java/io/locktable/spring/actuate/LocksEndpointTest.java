package io.locktable.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.LockTableOptions;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.actuate.ActuatorApp.Actuator;
import io.locktable.spring.actuate.ActuatorApp.Report;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * Two instances over HTTP: this test's context ({@code node-a}, with the step-down allowed), which leads, and a
 * second one ({@code node-b}, default access), which follows. Checks {@code /actuator/locks}, the fencing-token and
 * leader meters, and the step-down; the tests run in order, the last one moves the leadership.
 */
@SpringBootTest(classes = ActuatorApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocksEndpointTest {

    private static final String JOB = "observed-job";
    private static final Duration WITHIN = ActuatorApp.LEASE.multipliedBy(3);
    private static TestTable table;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        table = DynamoDbEngines.current().createTable("LocksEndpointTest", "pk", "sk");
        for (String property :
                ActuatorApp.properties(table, "node-a", JOB, "management.endpoint.locks.access=unrestricted")) {
            int split = property.indexOf('=');
            registry.add(property.substring(0, split), () -> property.substring(split + 1));
        }
    }

    @LocalServerPort
    private int port;

    @Autowired
    private LeaderRunner runnerA;

    @Autowired
    private LockTable locksA;

    private ConfigurableApplicationContext instanceB;
    private LeaderRunner runnerB;
    private Actuator a;
    private Actuator b;

    @BeforeAll
    void startTheFollower() {
        a = new Actuator(port);
        await().atMost(WITHIN).until(() -> runnerA.isLeader(JOB));
        instanceB = ActuatorApp.start(ActuatorApp.properties(table, "node-b", JOB));
        runnerB = instanceB.getBean(LeaderRunner.class);
        b = new Actuator(ActuatorApp.port(instanceB));
    }

    @AfterAll
    void stop() {
        if (instanceB != null) {
            instanceB.close();
        }
        runnerA.stop(); // releases its lease before the table goes; the context closes after this class
        DynamoDbEngines.current().deleteTable(table.name());
    }

    @Test
    @Order(1)
    void showsTheLeasesAndLeadershipsOfTheLeaderAndOfTheFollower() {
        Lease lease = runnerA.lease(JOB).orElseThrow();

        Actuator.Response leader = a.get("/actuator/locks");
        assertThat(leader.status()).isEqualTo(200);
        JsonNode json = leader.json();
        assertThat(json.get("table").asString()).isEqualTo(table.name());
        assertThat(json.get("partitionKey").asString()).isEqualTo("pk");
        assertThat(json.get("sortKey").asString()).isEqualTo("sk");
        assertThat(json.get("owner").asString()).isEqualTo(locksA.owner());
        assertThat(json.get("holder").asString()).isEqualTo("node-a");
        assertThat(json.get("leases")).hasSize(1);
        assertLease(json.get("leases").get(0), lease, true);
        assertThat(json.get("leaders")).hasSize(1);
        JsonNode leading = json.get("leaders").get(0);
        assertThat(leading.get("name").asString()).isEqualTo(JOB);
        assertThat(leading.get("state").asString()).isEqualTo("LEADING");
        assertThat(leading.get("terms").asLong()).isEqualTo(1);
        assertThat(leading.has("lastError")).isTrue();
        assertThat(leading.get("lastError").isNull()).isTrue();
        assertThat(leading.get("lastErrorAt").isNull()).isTrue();

        JsonNode follower = b.get("/actuator/locks").json();
        assertThat(follower.get("owner").asString())
                .isEqualTo(instanceB.getBean(LockTable.class).owner())
                .isNotEqualTo(locksA.owner());
        assertThat(follower.get("holder").asString()).isEqualTo("node-b");
        assertThat(follower.get("leases")).isEmpty();
        JsonNode following = follower.get("leaders").get(0);
        assertThat(following.get("name").asString()).isEqualTo(JOB);
        assertThat(following.get("state").asString()).isEqualTo("FOLLOWING");
        assertThat(following.get("terms").asLong()).isZero();
    }

    /** The follower tells who leads, as its polls read it from the item; the leader tells itself. */
    @Test
    @Order(2)
    void tellsWhoLeadsEachElectionOnTheLeaderAndOnTheFollower() {
        Lease lease = runnerA.lease(JOB).orElseThrow();

        JsonNode self = a.get("/actuator/locks").json().get("leaders").get(0).get("leader");
        assertThat(self.get("holder").asString()).isEqualTo("node-a");
        assertThat(self.get("owner").asString()).isEqualTo(lease.owner());
        assertThat(self.get("fencingToken").asLong()).isEqualTo(lease.fencingToken());
        assertThat(Instant.parse(self.get("since").asString()))
                .isCloseTo(lease.acquiredAt(), within(1, ChronoUnit.MILLIS));
        assertThat(self.get("self").asBoolean()).isTrue();

        await().atMost(WITHIN)
                .until(() -> !b.get("/actuator/locks")
                        .json()
                        .get("leaders")
                        .get(0)
                        .get("leader")
                        .isNull());
        JsonNode seen = b.get("/actuator/locks").json().get("leaders").get(0).get("leader");
        assertThat(seen.get("holder").asString()).isEqualTo("node-a");
        assertThat(seen.get("owner").asString()).isEqualTo(lease.owner());
        assertThat(seen.get("fencingToken").asLong()).isEqualTo(lease.fencingToken());
        assertThat(seen.get("self").asBoolean()).isFalse();
        Instant since = Instant.parse(seen.get("since").asString());
        assertThat(Instant.parse(seen.get("seenAt").asString())).isAfterOrEqualTo(since);
        await().atMost(WITHIN)
                .until(() -> Instant.parse(b.get("/actuator/locks")
                                .json()
                                .get("leaders")
                                .get(0)
                                .get("leader")
                                .get("seenAt")
                                .asString())
                        .isAfter(since));
        assertThat(b.get("/actuator/locks")
                        .json()
                        .get("leaders")
                        .get(0)
                        .get("leader")
                        .get("since")
                        .asString())
                .as("the same term, read again: since stays")
                .isEqualTo(seen.get("since").asString());
    }

    /**
     * Each {@code @LockedRun}'s last run: on the instance whose call was skipped, the run another instance held (read
     * from the item); once it runs itself, its own run with its outcome.
     */
    @Test
    @Order(4)
    void tellsTheLastRunOfEachLockedRunNotOnlyThoseInProgress() {
        String report = JOB + "-report";
        LockTable.Builder third = LockTable.builder(
                        DynamoDbEngines.current().client(), table.name(), table.partitionKey())
                .options(LockTableOptions.builder().holder("node-c").build());
        table.sortKey().ifPresent(third::sortKey);
        Report reportB = instanceB.getBean(Report.class);
        long heldToken;
        try (LockTable nodeC = third.build()) {
            Lease held = nodeC.tryAcquire(report, ActuatorApp.LEASE).orElseThrow();
            heldToken = held.fencingToken();
            assertThat(reportB.run()).as("skipped: node-c holds it").isEmpty();
            await().atMost(WITHIN)
                    .until(() ->
                            !b.get("/actuator/locks").json().get("lastRuns").isEmpty());
            JsonNode elsewhere = b.get("/actuator/locks").json().get("lastRuns").get(0);
            assertThat(elsewhere.get("name").asString()).isEqualTo(report);
            assertThat(elsewhere.get("instance").asString()).isEqualTo("node-c");
            assertThat(elsewhere.get("fencingToken").asLong()).isEqualTo(held.fencingToken());
            assertThat(elsewhere.get("at").asString()).endsWith("Z");
            assertThat(elsewhere.get("endedAt").isNull()).isTrue();
            assertThat(elsewhere.get("outcome").asString()).isEqualTo("HELD");
            held.release();
        }

        assertThat(reportB.run()).as("runs on node-b").isPresent();

        JsonNode own = b.get("/actuator/locks").json().get("lastRuns").get(0);
        assertThat(own.get("name").asString()).isEqualTo(report);
        assertThat(own.get("instance").asString()).isEqualTo("node-b");
        assertThat(own.get("fencingToken").asLong()).isGreaterThan(heldToken);
        assertThat(Instant.parse(own.get("endedAt").asString()))
                .isAfterOrEqualTo(Instant.parse(own.get("at").asString()));
        assertThat(own.get("outcome").asString()).isEqualTo("COMPLETED");
        assertThat(b.get("/actuator/locks").json().get("runs"))
                .as("none in progress")
                .isEmpty();
        assertThat(a.get("/actuator/locks").json().get("lastRuns"))
                .as("node-a never called it")
                .isEmpty();
    }

    @Test
    @Order(2)
    void showsOneLockAsStoredBesideTheLocalLease() {
        Lease lease = runnerA.lease(JOB).orElseThrow();

        JsonNode leader = a.get("/actuator/locks/" + JOB).json();
        assertThat(leader.get("name").asString()).isEqualTo(JOB);
        JsonNode stored = leader.get("stored");
        assertThat(stored.get("owner").asString()).isEqualTo(lease.owner()).startsWith(locksA.owner() + ".");
        assertThat(stored.get("holder").asString()).isEqualTo("node-a");
        assertThat(stored.get("fencingToken").asLong()).isEqualTo(lease.fencingToken());
        assertThat(stored.get("leaseDuration").asString()).isEqualTo("PT3S");
        assertLease(leader.get("local"), lease, true);

        JsonNode follower = b.get("/actuator/locks/" + JOB).json();
        assertThat(follower.get("stored").get("owner").asString()).isEqualTo(lease.owner());
        assertThat(follower.has("local")).isTrue();
        assertThat(follower.get("local").isNull()).isTrue();

        assertThat(a.get("/actuator/locks/no-such-lock").status()).isEqualTo(404);
    }

    @Test
    @Order(3)
    void metersTellTheLeaderAndItsFencingToken() {
        Lease lease = runnerA.lease(JOB).orElseThrow();
        String lock = "lock:" + JOB;

        assertThat(a.meter("locktable.leader", lock)).isEqualTo(1.0);
        assertThat(b.meter("locktable.leader", lock)).isEqualTo(0.0);
        assertThat(a.meter("locktable.lease.fencing.token", lock)).isEqualTo(lease.fencingToken());
        assertThat(b.meter("locktable.lease.fencing.token", lock)).isNaN(); // no such meter: it holds no lease
        assertThat(a.meter("locktable.leases.held")).isEqualTo(1.0);
        assertThat(b.meter("locktable.leases.held")).isEqualTo(0.0);
        assertThat(a.meter("locktable.acquire", lock, "outcome:acquired")).isEqualTo(1.0);
        await().atMost(WITHIN).until(() -> a.meter("locktable.renewals", lock, "outcome:success") >= 1);
        await().atMost(WITHIN).until(() -> b.meter("locktable.leader.skipped", lock) >= 1);
        assertThat(a.meter("locktable.leader.skipped", lock)).isLessThan(b.meter("locktable.leader.skipped", lock));

        JsonNode names = a.get("/actuator/metrics").json().get("names");
        assertThat(names.valueStream().map(JsonNode::asString).filter(n -> n.startsWith("locktable.")))
                .contains(
                        "locktable.leases.held",
                        "locktable.lease.fencing.token",
                        "locktable.leader",
                        "locktable.acquire",
                        "locktable.renewals",
                        "locktable.leader.skipped");
    }

    @Test
    @Order(5)
    void refusesTheStepDownWithTheDefaultAccess() {
        Actuator.Response refused = b.post("/actuator/locks/" + JOB);

        assertThat(refused.status()).isIn(404, 405);
        assertThat(runnerA.isLeader(JOB)).isTrue();
        assertThat(a.post("/actuator/locks/no-such-lock").status()).isEqualTo(404);
    }

    @Test
    @Order(6)
    void stepsDownSoTheOtherInstanceLeadsWithAHigherToken() {
        long before = runnerA.lease(JOB).orElseThrow().fencingToken();

        Actuator.Response stepped = a.post("/actuator/locks/" + JOB);

        assertThat(stepped.status()).isEqualTo(200);
        assertThat(stepped.json().get("state").asString()).isEqualTo("FOLLOWING");
        assertThat(runnerA.isLeader(JOB)).isFalse();
        await().atMost(WITHIN).until(() -> runnerB.isLeader(JOB));
        Lease taken = runnerB.lease(JOB).orElseThrow();
        assertThat(taken.fencingToken()).isGreaterThan(before);
        JsonNode lease = b.get("/actuator/locks").json().get("leases").get(0);
        assertLease(lease, taken, true);
        assertThat(b.meter("locktable.leader", "lock:" + JOB)).isEqualTo(1.0);
        await().atMost(WITHIN).until(() -> a.meter("locktable.leader", "lock:" + JOB) == 0.0);
        assertThat(a.meter("locktable.lease.fencing.token", "lock:" + JOB))
                .as("the released lock's gauge is removed")
                .isNaN();
    }

    private static void assertLease(JsonNode json, Lease lease, boolean leader) {
        assertThat(json.get("name").asString()).isEqualTo(lease.name());
        assertThat(json.get("fencingToken").asLong()).isEqualTo(lease.fencingToken());
        assertThat(Instant.parse(json.get("acquiredAt").asString()))
                .isCloseTo(lease.acquiredAt(), within(1, ChronoUnit.MILLIS));
        assertThat(json.get("acquiredAt").asString()).endsWith("Z");
        assertThat(Instant.parse(json.get("renewedAt").asString()))
                .isAfterOrEqualTo(Instant.parse(json.get("acquiredAt").asString()));
        Duration remaining = Duration.parse(json.get("remaining").asString());
        assertThat(remaining).isPositive().isLessThanOrEqualTo(ActuatorApp.LEASE);
        assertThat(json.get("leader").asBoolean()).isEqualTo(leader);
    }
}
