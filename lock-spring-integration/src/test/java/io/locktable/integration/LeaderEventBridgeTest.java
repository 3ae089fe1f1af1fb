package io.locktable.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.integration.autoconfigure.LockTableIntegrationAutoConfiguration;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableDynamoDbClientAutoConfiguration;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.TestTable;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.integration.leader.event.AbstractLeaderEvent;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The starter's leader runner and Spring Integration's leader events, against the real engine: a {@code @LeaderOnly}
 * name's terms reach listeners of {@link OnGrantedEvent} and {@link OnRevokedEvent}, whose context yields.
 */
@DynamoDbEngineTest
class LeaderEventBridgeTest {

    static final String NAME = "bridge-" + UUID.randomUUID();

    /** A leader-only job, so that the runner leads {@link #NAME}. */
    public static class Job {
        @LeaderOnly(name = "${test.leader-name}")
        public void run() {}
    }

    /** What a Spring Integration application listens to. */
    record Heard(String type, String role, boolean leader, Object source) {}

    static final class Listener implements ApplicationListener<AbstractLeaderEvent> {
        final List<Heard> heard = new CopyOnWriteArrayList<>();
        final List<AbstractLeaderEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(AbstractLeaderEvent event) {
            events.add(event);
            heard.add(new Heard(
                    event.getClass().getSimpleName(),
                    event.getRole(),
                    event.getContext().isLeader(),
                    event.getSource()));
        }
    }

    private final ApplicationContextRunner runner;

    LeaderEventBridgeTest(DynamoDbEngine engine, TestTable table) {
        this.runner = new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableIntegrationAutoConfiguration.class, // out of order: it orders itself after those
                        LockTableDynamoDbClientAutoConfiguration.class,
                        LockTableAutoConfiguration.class,
                        LeaderOnlyAutoConfiguration.class))
                .withBean(DynamoDbClient.class, () -> engine.newClient(o -> {}))
                .withBean(Job.class)
                .withBean(Listener.class)
                .withPropertyValues(
                        "locktable.table-name=" + table.name(),
                        "locktable.sort-key=" + table.sortKey().orElse(""),
                        "locktable.lease-duration=2s",
                        "test.leader-name=" + NAME);
    }

    @Test
    void grantedAndRevokedReachSpringIntegrationListenersAndTheContextYields() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LeaderEventBridge.class);
            LeaderRunner leaders = context.getBean(LeaderRunner.class);
            Listener listener = context.getBean(Listener.class);

            await().atMost(Duration.ofSeconds(20)).until(() -> !listener.heard.isEmpty());
            assertThat(listener.heard.get(0)).isEqualTo(new Heard("OnGrantedEvent", NAME, true, leaders));
            assertThat(leaders.isLeader(NAME)).isTrue();

            listener.events.get(0).getContext().yield();

            await().atMost(Duration.ofSeconds(20)).until(() -> listener.heard.size() >= 2);
            assertThat(listener.heard.get(1)).isEqualTo(new Heard("OnRevokedEvent", NAME, false, leaders));
            assertThat(leaders.isLeader(NAME)).isFalse();
            assertThat(listener.events.get(1)).isInstanceOf(OnRevokedEvent.class);
            assertThat(listener.events.get(1).getContext().getRole()).isEqualTo(NAME);
        });
    }
}
