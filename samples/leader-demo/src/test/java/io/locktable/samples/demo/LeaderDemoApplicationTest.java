package io.locktable.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.spring.test.LockTableTestProperties;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample on lock-test's engine (dynalite, or moto with {@code -Dlocktable.test.engine=moto}), pointed at it with
 * {@link LockTableTestProperties} from a {@code @DynamicPropertySource}: the only instance leads and appends fenced
 * sweep records, and runs the {@code @LockedRun} report.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class LeaderDemoApplicationTest {

    @DynamicPropertySource
    static void engine(DynamicPropertyRegistry registry) {
        LockTableTestProperties.register(registry);
        registry.add("demo.instance", () -> "solo");
        registry.add("demo.report.period", () -> "500ms");
        registry.add("demo.report.min-hold", () -> "400ms");
    }

    @LocalServerPort
    int port;

    private String get(String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(path).isEqualTo(200);
        return response.body();
    }

    @Test
    void theOnlyInstanceLeadsAndAppendsFencedRecords() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        String records = get("/demo/records");
        while (!records.contains("solo:2") && System.nanoTime() < deadline) {
            Thread.sleep(200);
            records = get("/demo/records");
        }

        assertThat(records).contains("1:solo:1", "1:solo:2");
        assertThat(get("/demo/status")).contains("\"leader\":true").contains("\"fencingToken\":1");
        assertThat(get("/actuator/health")).contains("UP");
        assertThat(get("/demo/reports")).as("the @LockedRun report ran here").contains("solo:1");
        assertThat(get("/actuator/locks")).contains("\"runs\":[");
    }
}
