package io.locktable.spring;

import io.locktable.Lease;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientAutoConfiguration;
import io.locktable.spring.autoconfigure.LockedRunAutoConfiguration;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionCheck;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

/**
 * One instance of a clustered application in this JVM: a Spring Boot context with the starter's auto-configuration,
 * a {@code @LeaderOnly @Scheduled} method, its own DynamoDB client (with a switch that fails its writes) and its
 * own holder name.
 */
final class ClusterMember implements AutoCloseable {

    static {
        // many contexts in one JVM: keep the test's logback configuration instead of re-initialising it each time
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
    }

    final String holder;
    final ConfigurableApplicationContext context;
    private final Faults faults;
    private final LeaderRunner runner;
    private final Sweeper sweeper;
    private final EventLog events;
    private final DynamoDbClient client;

    private ClusterMember(String holder, ConfigurableApplicationContext context, Faults faults) {
        this.holder = holder;
        this.context = context;
        this.faults = faults;
        this.runner = context.getBean(LeaderRunner.class);
        this.sweeper = context.getBean(Sweeper.class);
        this.events = context.getBean(EventLog.class);
        this.client = context.getBean(DynamoDbClient.class);
    }

    static ClusterMember start(TestTable table, String holder, Runs runs, String lockName, String... properties) {
        return start(table, holder, runs, lockName, List.of(), properties);
    }

    /** Starts a member whose context also has beans of the given classes, such as {@code @LockedRun} jobs. */
    static ClusterMember start(
            TestTable table, String holder, Runs runs, String lockName, List<Class<?>> beans, String... properties) {
        Faults faults = new Faults();
        DynamoDbClient client = table.engine().newClient(o -> o.addExecutionInterceptor(faults));
        List<String> all = new ArrayList<>(List.of(
                "spring.application.name=cluster",
                "locktable.table-name=" + table.name(),
                "locktable.sort-key=" + table.sortKey().orElse(""),
                "locktable.holder=" + holder,
                "locktable.lease-duration=" + LeaderOnlyClusterTest.LEASE.toMillis() + "ms",
                "sweep.name=" + lockName));
        all.addAll(List.of(properties));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(ClusterApp.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(all.toArray(String[]::new))
                .initializers(c -> {
                    GenericApplicationContext generic = (GenericApplicationContext) c;
                    generic.registerBean(DynamoDbClient.class, () -> client);
                    generic.registerBean(Runs.class, () -> runs);
                    beans.forEach(type -> generic.registerBean(type));
                })
                .run();
        return new ClusterMember(holder, context, faults);
    }

    /** Fails every UpdateItem of this member's client (acquires, renewals, releases) while on. */
    void failUpdates(boolean on) {
        faults.failUpdates = on;
    }

    LeaderRunner runner() {
        return runner;
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** The proxied bean, which stays callable while and after its context closes. */
    Sweeper sweeper() {
        return sweeper;
    }

    EventLog events() {
        return events;
    }

    DynamoDbClient client() {
        return client;
    }

    boolean isLeader(String name) {
        return runner.isLeader(name);
    }

    @Override
    public void close() {
        faults.failUpdates = false;
        faults.hangPrefix = null;
        context.close();
    }

    @Override
    public String toString() {
        return holder;
    }

    /** Evaluates a lease's {@code heldCheck()} on the engine, which has no transactions: as an UpdateItem's condition. */
    static void evaluateHeldCheck(DynamoDbClient client, Lease lease) {
        ConditionCheck check = lease.heldCheck().conditionCheck();
        client.updateItem(r -> r.tableName(check.tableName())
                .key(check.key())
                .conditionExpression(check.conditionExpression())
                .expressionAttributeNames(check.expressionAttributeNames())
                .expressionAttributeValues(check.expressionAttributeValues())
                .updateExpression("SET #fence = #fence"));
    }

    /**
     * Holds every request of a lock whose name starts with the prefix on the thread that sends it (a worker of the
     * table) until the latch opens, as an engine that hangs would; interrupts (the SDK's call timeout) do not free it.
     * Returns how many such requests hang now.
     */
    AtomicInteger hangRequestsOf(String namePrefix, CountDownLatch until) {
        faults.hangPrefix = "LOCK#" + namePrefix;
        faults.hangUntil = until;
        return faults.hanging;
    }

    /** Fails this member's UpdateItem requests on demand, before they leave; holds those of hanging names. */
    static final class Faults implements ExecutionInterceptor {
        volatile boolean failUpdates;
        volatile @Nullable String hangPrefix;
        volatile CountDownLatch hangUntil = new CountDownLatch(0);
        final AtomicInteger hanging = new AtomicInteger();

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            String prefix = hangPrefix;
            if (prefix != null && names(context.request()).anyMatch(key -> key.startsWith(prefix))) {
                hang();
            }
            if (failUpdates && "UpdateItem".equals(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME))) {
                throw SdkClientException.create("UpdateItem blocked by the test");
            }
        }

        private static java.util.stream.Stream<String> names(SdkRequest request) {
            Map<String, AttributeValue> key = request instanceof UpdateItemRequest update
                    ? update.key()
                    : request instanceof GetItemRequest get ? get.key() : Map.of();
            return key.values().stream().map(AttributeValue::s).filter(Objects::nonNull);
        }

        private void hang() {
            hanging.incrementAndGet();
            boolean interrupted = false;
            try {
                while (true) {
                    try {
                        hangUntil.await(60, TimeUnit.SECONDS); // a test that forgot to let go: a minute at most
                        return;
                    } catch (InterruptedException e) {
                        interrupted = true; // as a socket read would, the hang outlasts an interrupt
                    }
                }
            } finally {
                hanging.decrementAndGet();
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** The runs of the scheduled method of every member, shared by the members of a test. */
    static final class Runs {
        record Run(String holder, String owner, long fencingToken, boolean held, long nanos) {}

        final List<Run> all = new CopyOnWriteArrayList<>();

        List<Run> of(ClusterMember member) {
            return all.stream().filter(r -> r.holder().equals(member.holder)).toList();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @ImportAutoConfiguration({
        TaskSchedulingAutoConfiguration.class,
        LockTableDynamoDbClientAutoConfiguration.class,
        LockTableAutoConfiguration.class,
        LeaderOnlyAutoConfiguration.class,
        LockedRunAutoConfiguration.class
    })
    static class ClusterApp {

        @Bean
        Sweeper sweeper(Runs runs, Environment environment) {
            return new Sweeper(runs, environment.getRequiredProperty("locktable.holder"));
        }

        @Bean
        EventLog eventLog() {
            return new EventLog();
        }
    }

    /** The clustered work: a scheduled sweep, and calls the tests make. */
    public static class Sweeper {
        private final Runs runs;
        private final String holder;

        Sweeper(Runs runs, String holder) {
            this.runs = runs;
            this.holder = holder;
        }

        @Scheduled(fixedDelay = 100)
        @LeaderOnly("${sweep.name}")
        public void sweep() {
            Lease lease = Lease.current().orElseThrow();
            runs.all.add(new Runs.Run(holder, lease.owner(), lease.fencingToken(), lease.isHeld(), System.nanoTime()));
        }

        /** A scheduled call that takes long once armed, to be in flight when the context closes. */
        @Scheduled(fixedDelay = 50)
        @LeaderOnly("${sweep.name}")
        public void slowSweep() throws InterruptedException {
            SlowCall call = slow.getAndSet(null);
            if (call == null) {
                return;
            }
            Lease lease = Lease.current().orElseThrow();
            call.entered.countDown();
            Thread.sleep(call.duration.toMillis());
            call.heldAtEnd = lease.isHeld();
            call.endedNanos = System.nanoTime();
        }

        private final AtomicReference<SlowCall> slow = new AtomicReference<>();

        SlowCall armSlowCall(Duration duration) {
            SlowCall call = new SlowCall(duration);
            slow.set(call);
            return call;
        }

        /** The lease bound inside a call, after checking on the engine that its heldCheck() condition holds. */
        @LeaderOnly("${sweep.name}")
        public Optional<Lease> fencedCall(DynamoDbClient client) {
            Lease lease = Lease.current().orElseThrow();
            evaluateHeldCheck(client, lease);
            return Optional.of(lease);
        }

        /** Blocks inside the call until released; returns whether the lease was held all along. */
        @LeaderOnly("${sweep.name}")
        public Boolean block(CountDownLatch entered, CountDownLatch release) throws InterruptedException {
            Lease lease = Lease.current().orElseThrow();
            entered.countDown();
            release.await();
            return lease.isHeld() && Lease.current().orElseThrow() == lease;
        }
    }

    /** What a slow scheduled call saw. */
    static final class SlowCall {
        final Duration duration;
        final CountDownLatch entered = new CountDownLatch(1);
        volatile boolean heldAtEnd;
        volatile long endedNanos;

        SlowCall(Duration duration) {
            this.duration = duration;
        }
    }

    /** The leadership events a member received, with what the runner said inside the listener. */
    public static class EventLog {
        record Entry(String type, String name, boolean leaderInside, String thread) {}

        final List<Entry> entries = new CopyOnWriteArrayList<>();

        @EventListener
        public void granted(LeadershipGrantedEvent event) {
            LeaderRunner runner = (LeaderRunner) event.getSource();
            boolean leading =
                    runner.isLeader(event.name()) && runner.lease(event.name()).orElse(null) == event.lease();
            entries.add(new Entry(
                    "granted", event.name(), leading, Thread.currentThread().getName()));
        }

        @EventListener
        public void revoked(LeadershipRevokedEvent event) {
            LeaderRunner runner = (LeaderRunner) event.getSource();
            entries.add(new Entry(
                    "revoked",
                    event.name(),
                    runner.isLeader(event.name()),
                    Thread.currentThread().getName()));
        }

        List<String> types() {
            return entries.stream().map(Entry::type).toList();
        }
    }
}
