package io.locktable.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.integration.autoconfigure.LockTableIntegrationAutoConfiguration;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientAutoConfiguration;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Spring Integration's {@code LockRegistryLeaderInitiator} over the auto-configured registry, in application contexts
 * that share one table on the real engine, each with a DynamoDB client of its own (as separate processes have): one
 * leader at a time, and another takes over when the leader's context closes, and when the leader's requests all fail
 * (its lease then runs out without renewals).
 */
@DynamoDbEngineTest
class LeaderInitiatorTest {

    static {
        // several contexts in one JVM: keep the test's logback configuration
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
    }

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration BOUND = Duration.ofSeconds(30);

    /** What every instance's candidate saw, in order. */
    static final class Terms {
        final List<String> events = new CopyOnWriteArrayList<>();
        final Map<String, Long> tokens = new ConcurrentHashMap<>();
        final List<Long> grantedTokens = new CopyOnWriteArrayList<>();
        final AtomicInteger leaders = new AtomicInteger();
        final Map<String, Boolean> leading = new ConcurrentHashMap<>();

        List<String> leaders() {
            return leading.entrySet().stream()
                    .filter(Map.Entry::getValue)
                    .map(Map.Entry::getKey)
                    .toList();
        }
    }

    /** A candidate as an application has it; it notes the lease bound as {@code Lease.current()} at each grant. */
    record Member(String id, String role, Terms terms) implements Candidate {
        @Override
        public String getRole() {
            return role;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public void onGranted(Context context) {
            long token = Lease.current().orElseThrow().fencingToken();
            terms.grantedTokens.add(token);
            terms.leading.put(id, true);
            terms.leaders.incrementAndGet();
            terms.events.add("granted " + id);
        }

        @Override
        public void onRevoked(Context context) {
            if (Boolean.TRUE.equals(terms.leading.put(id, false))) {
                terms.leaders.decrementAndGet();
            }
            terms.events.add("revoked " + id);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        LockTableDynamoDbClientAutoConfiguration.class,
        LockTableAutoConfiguration.class,
        LeaderOnlyAutoConfiguration.class,
        LockTableIntegrationAutoConfiguration.class
    })
    static class App {
        @Bean
        LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> registry, Member member) {
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, member);
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(50);
            return initiator;
        }
    }

    /** One instance: its context and the fault injector on its client. */
    record Instance(String id, ConfigurableApplicationContext context, FaultInjector faults) {
        void cutOff() {
            for (String operation : List.of("GetItem", "UpdateItem", "PutItem")) {
                faults.blackhole(operation);
            }
        }
    }

    private final TestTable table;
    private final String role = "leader-" + UUID.randomUUID();
    private final Terms terms = new Terms();
    private final List<Instance> instances = new ArrayList<>();

    LeaderInitiatorTest(TestTable table) {
        this.table = table;
    }

    @AfterEach
    void closeAll() {
        instances.forEach(instance -> instance.context().close());
    }

    private Instance start(String id) {
        FaultInjector faults = new FaultInjector();
        DynamoDbClient client = table.engine().newClient(o -> o.addExecutionInterceptor(faults));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.holder=" + id,
                        "locktable.lease-duration=" + LEASE.toMillis() + "ms")
                .initializers(c -> {
                    GenericApplicationContext generic = (GenericApplicationContext) c;
                    generic.registerBean(DynamoDbClient.class, () -> client);
                    generic.registerBean(Member.class, () -> new Member(id, role, terms));
                })
                .run();
        Instance instance = new Instance(id, context, faults);
        instances.add(instance);
        return instance;
    }

    @Test
    void oneLeaderAtATimeAndATakeoverAfterAGracefulStop() {
        twoInstancesElectOneThatHandsOverOnAGracefulStop();
        assertThat(terms.grantedTokens)
                .as("fencing tokens of the terms")
                .isSorted()
                .doesNotHaveDuplicates();
    }

    @Test
    void oneLeaderAtATimeAndATakeoverAfterAGracefulStopAndAfterACrash() {
        Instance survivor = twoInstancesElectOneThatHandsOverOnAGracefulStop();
        String second = survivor.id();

        Instance c = start("c");
        Instance crashed = survivor;
        await().during(LEASE).atMost(BOUND).until(() -> terms.leaders().equals(List.of(second)));
        long cutAt = System.nanoTime();
        crashed.cutOff(); // every request fails: no renewal, no release
        await().atMost(BOUND).until(() -> terms.leaders().equals(List.of("c")));
        Duration takeover = Duration.ofNanos(System.nanoTime() - cutAt);
        System.out.println("takeover after the leader's requests all failed: " + takeover + "; " + terms.events);
        // a lease after the last renewal the contender saw, which came up to a third of a lease before the cut
        assertThat(takeover).as("after a lease without renewals").isBetween(LEASE.dividedBy(2), LEASE.multipliedBy(5));
        assertThat(terms.events).as("the cut-off leader stepped down").contains("revoked " + second);
        assertThat(terms.grantedTokens)
                .as("fencing tokens of the terms")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(c.context().isActive()).isTrue();
    }

    /**
     * Two instances elect exactly one leader, which keeps leading for two leases; then its context closes and the
     * other takes over at its next poll, well before a lease.
     *
     * @return the instance that leads after the handover
     */
    private Instance twoInstancesElectOneThatHandsOverOnAGracefulStop() {
        Instance a = start("a");
        Instance b = start("b");
        assertThat(a.context().getBean(LockRegistry.class)).isInstanceOf(LockTableLockRegistry.class);

        await().atMost(BOUND).until(() -> terms.leaders().size() == 1);
        await().during(LEASE.multipliedBy(2))
                .atMost(BOUND)
                .until(() -> terms.leaders().size() == 1 && terms.leaders.get() == 1);
        String first = terms.leaders().get(0);
        Instance leader = first.equals("a") ? a : b;
        String second = first.equals("a") ? "b" : "a";

        long closedAt = System.nanoTime();
        leader.context().close(); // its initiator stops, unlocks and so releases the lease
        await().atMost(BOUND).until(() -> terms.leaders().equals(List.of(second)));
        Duration failover = Duration.ofNanos(System.nanoTime() - closedAt);
        System.out.println("takeover after a graceful stop: " + failover);
        assertThat(failover).as("at the other's next poll, well before a lease").isLessThan(LEASE);
        assertThat(terms.events).contains("revoked " + first);
        return second.equals("a") ? a : b;
    }
}
