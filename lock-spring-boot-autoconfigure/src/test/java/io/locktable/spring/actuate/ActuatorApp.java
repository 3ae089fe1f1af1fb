package io.locktable.spring.actuate;

import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.TestTable;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A web application with the actuator, Micrometer and the starter's whole auto-configuration, whose scheduled
 * {@code @LeaderOnly} job is named by {@code job.name}; and an HTTP client for its actuator.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableScheduling
class ActuatorApp {

    static {
        // several contexts in one JVM: keep the test's logback configuration
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
    }

    static final Duration LEASE = Duration.ofSeconds(3);

    @Bean
    DynamoDbClient dynamoDbClient() {
        return DynamoDbEngines.current().clientBuilder().build();
    }

    @Bean
    Job job() {
        return new Job();
    }

    @Bean
    Report report() {
        return new Report();
    }

    /** A per-run lock, called by the tests: present when the body ran, empty when the call was skipped. */
    public static class Report {
        @LockedRun("${job.name}-report")
        public Optional<String> run() {
            return Optional.of("ran");
        }
    }

    /** The clustered work: a scheduled call that runs only on the leader. */
    public static class Job {
        @Scheduled(fixedDelay = 100)
        @LeaderOnly("${job.name}")
        public void run() {}
    }

    /** The properties of an instance of the application on a table. */
    static List<String> properties(TestTable table, String holder, String job, String... more) {
        List<String> all = new ArrayList<>(List.of(
                "spring.application.name=observed",
                "locktable.table-name=" + table.name(),
                "locktable.sort-key=" + table.sortKey().orElse(""),
                "locktable.holder=" + holder,
                "locktable.lease-duration=" + LEASE.toMillis() + "ms",
                "job.name=" + job,
                "management.endpoints.web.exposure.include=locks,health,metrics",
                "management.endpoint.health.show-details=always"));
        all.addAll(List.of(more));
        return all;
    }

    /** Starts another instance on a random port. */
    static ConfigurableApplicationContext start(List<String> properties) {
        List<String> all = new ArrayList<>(properties);
        all.add("server.port=0");
        return new SpringApplicationBuilder(ActuatorApp.class)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(all.toArray(String[]::new))
                .run();
    }

    static int port(ConfigurableApplicationContext context) {
        return context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    /** A real HTTP client for one instance's actuator. */
    static final class Actuator {
        private static final HttpClient HTTP =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        private static final JsonMapper JSON = JsonMapper.builder().build();

        private final int port;

        Actuator(int port) {
            this.port = port;
        }

        /** A response: its status and its body, parsed when it is JSON. */
        record Response(int status, String body) {
            JsonNode json() {
                return JSON.readTree(body);
            }
        }

        Response get(String path) {
            return send(HttpRequest.newBuilder(uri(path)).GET());
        }

        Response post(String path) {
            return send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody()));
        }

        /** The value of a meter's single measurement, or NaN when the meter does not exist. */
        double meter(String name, String... tags) {
            StringBuilder path = new StringBuilder("/actuator/metrics/").append(name);
            for (int i = 0; i < tags.length; i++) {
                path.append(i == 0 ? '?' : '&').append("tag=").append(tags[i]);
            }
            Response response = get(path.toString());
            if (response.status() == 404) {
                return Double.NaN;
            }
            JsonNode measurements = response.json().get("measurements");
            for (JsonNode measurement : measurements) {
                String statistic = measurement.get("statistic").asString();
                if (statistic.equals("VALUE") || statistic.equals("COUNT")) {
                    return measurement.get("value").asDouble();
                }
            }
            throw new AssertionError("no VALUE or COUNT in " + response.body());
        }

        private URI uri(String path) {
            return URI.create("http://localhost:" + port + path);
        }

        private static Response send(HttpRequest.Builder request) {
            try {
                HttpResponse<String> response = HTTP.send(
                        request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
                return new Response(response.statusCode(), response.body());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
