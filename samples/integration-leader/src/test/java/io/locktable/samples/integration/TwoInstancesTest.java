package io.locktable.samples.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.LockTable;
import io.locktable.spring.test.ApplicationProcess;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two instances of the sample, each a JVM of its own, on the test's engine: their {@code LockRegistryLeaderInitiator}s
 * elect exactly one leader, which keeps leading over a stretch of several leases; once it is killed with SIGKILL (no
 * unlock), the other is granted the role after the lease, with a higher fencing token, and sweeps. Each instance's
 * {@code GET /leader} says whether it leads; the sample's fenced journal shows whose sweeps were applied.
 */
@DynamoDbEngineTest
class TwoInstancesTest {

    /** {@code locktable.lease-duration}: the registry's lease, and how long a killed leader keeps the role. */
    private static final Duration LEASE = Duration.ofSeconds(3);

    private static final Duration BOUND = Duration.ofSeconds(40);
    /**
     * The first wait also waits for the two JVMs to start: 36 s each was seen on a 2-core machine running other builds,
     * so it has a bound of its own, and {@link #BOUND} stays the bound of what the test measures.
     */
    private static final Duration STARTUP = Duration.ofSeconds(120);

    private static final Pattern LEADER = Pattern.compile("\"leader\":(true|false)");
    private static final Pattern TOKEN = Pattern.compile("\"fencingToken\":(\\d+)");

    private final DynamoDbEngine engine;
    private final TestTable table;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final List<ApplicationProcess> instances = new ArrayList<>();

    TwoInstancesTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
    }

    @AfterEach
    void killInstances() throws InterruptedException {
        ApplicationProcess.killAll(instances);
    }

    /** An instance and its HTTP port. */
    private record Member(ApplicationProcess process, int port) {
        String name() {
            return process.name();
        }
    }

    /** What an instance's {@code GET /leader} answered. */
    private record Status(boolean leader, long fencingToken) {}

    private Member start(String name) throws Exception {
        int port = freePort();
        ApplicationProcess process = ApplicationProcess.start(
                name,
                IntegrationLeaderApplication.class,
                engine,
                table,
                List.of(
                        "server.port=" + port,
                        "sweeper.instance=" + name,
                        "sweeper.every=200ms",
                        "sweeper.heart-beat=200ms",
                        "locktable.lease-duration=" + LEASE.toMillis() + "ms"));
        instances.add(process);
        return new Member(process, port);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private String get(Member member, String path) throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + member.port() + path))
                        .timeout(Duration.ofSeconds(5))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("%s %s", member.name(), path).isEqualTo(200);
        return response.body();
    }

    /** The instance's status; empty while it does not answer yet (starting). */
    private Optional<Status> status(Member member) {
        String body;
        try {
            body = get(member, "/leader");
        } catch (Exception e) {
            return Optional.empty();
        }
        Matcher leader = LEADER.matcher(body);
        Matcher token = TOKEN.matcher(body);
        assertThat(leader.find() && token.find())
                .as("%s: %s", member.name(), body)
                .isTrue();
        return Optional.of(new Status(Boolean.parseBoolean(leader.group(1)), Long.parseLong(token.group(1))));
    }

    /** The instances that say they lead, both having answered; empty if one has not. */
    private Optional<List<Member>> leaders(Member... members) {
        List<Member> leading = new ArrayList<>();
        for (Member member : members) {
            Optional<Status> status = status(member);
            if (status.isEmpty()) {
                return Optional.empty();
            }
            if (status.get().leader()) {
                leading.add(member);
            }
        }
        return Optional.of(leading);
    }

    @Test
    void oneLeaderAtATimeAndTheOtherIsGrantedTheRoleAfterTheLeaderIsKilled() throws Exception {
        Member a = start("a");
        Member b = start("b");
        try {
            scenario(a, b);
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError(
                    e.getMessage() + "\n" + a.process().tail() + "\n"
                            + b.process().tail(),
                    e);
        }
    }

    private void scenario(Member a, Member b) throws Exception {
        await().atMost(STARTUP)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> leaders(a, b).map(List::size).orElse(0) == 1);
        Member leader = leaders(a, b).orElseThrow().get(0);
        Member other = leader == a ? b : a;
        long firstTerm = status(leader).orElseThrow().fencingToken();

        // a stretch of three leases, polled every 100 ms: at each poll the same single leader, with the same term
        long stretchEnd = System.nanoTime() + LEASE.multipliedBy(3).toNanos();
        for (int poll = 1; System.nanoTime() < stretchEnd; poll++) {
            assertThat(leaders(a, b))
                    .as("the leaders at poll %d of the stretch", poll)
                    .contains(List.of(leader));
            assertThat(status(leader).orElseThrow().fencingToken())
                    .as("the term at poll %d", poll)
                    .isEqualTo(firstTerm);
            Thread.sleep(100); // the poll interval
        }
        assertThat(get(leader, "/actuator/locks"))
                .as("the registry's lock is a lease of the starter's LockTable")
                .contains("\"name\":\"order-sweeper\"");

        long killedAt = System.nanoTime();
        leader.process().kill();
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(50))
                .until(() -> status(other).map(Status::leader).orElse(false));
        Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
        System.out.println("takeover after SIGKILL: " + takeover + " (lease " + LEASE + ")");
        assertThat(takeover)
                .as("a lease after the killed leader's last renewal (a third of a lease before the kill at most),"
                        + " plus a heart beat and the status poll")
                .isBetween(LEASE.dividedBy(2), LEASE.multipliedBy(3));
        long secondTerm = status(other).orElseThrow().fencingToken();
        assertThat(secondTerm).as("the new term's fencing token").isGreaterThan(firstTerm);

        List<String> expectedStart =
                List.of(firstTerm + " " + leader.name() + " granted", firstTerm + " " + leader.name() + " sweep 1");
        await().atMost(BOUND).until(() -> journal().contains(secondTerm + " " + other.name() + " sweep 2"));
        List<String> journal = journal();
        System.out.println("journal: " + journal);
        assertThat(journal)
                .as("the first leader's term, then the second's")
                .startsWith(expectedStart.toArray(String[]::new));
        int handover = journal.indexOf(secondTerm + " " + other.name() + " granted");
        assertThat(handover).as("the second term's start in %s", journal).isPositive();
        assertThat(journal.subList(0, handover))
                .as("before it, only the first leader's sweeps")
                .allMatch(entry -> entry.startsWith(firstTerm + " " + leader.name() + " "));
        assertThat(journal.subList(handover, journal.size()))
                .as("after it, only the second leader's")
                .allMatch(entry -> entry.startsWith(secondTerm + " " + other.name() + " "));
    }

    private List<String> journal() {
        try (LockTable locks = LockTable.builder(engine.client(), table.name(), table.partitionKey())
                .sortKey(table.sortKey().orElseThrow())
                .build()) {
            return new SweepJournal(engine.client(), locks).entries();
        }
    }
}
