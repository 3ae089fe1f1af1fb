package io.locktable.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/** The local engines started as child processes: moto, and what it shares with dynalite. */
class LocalServerTest {

    private static Boolean motoInstalled;

    /** Whether the configured Python has moto; the tests that start moto are skipped, saying so, where it has not. */
    private static synchronized void assumeMotoInstalled() {
        if (motoInstalled == null) {
            motoInstalled = MotoServer.isInstalled();
        }
        assumeTrue(motoInstalled, () -> MotoServer.python() + " has no moto: pip install 'moto[server]'");
    }

    @Test
    void motoIsProbedAndHasTransactionsTheItemOnAConditionFailureAndTimeToLive() throws Exception {
        assumeMotoInstalled();
        HttpEngine moto = moto(Optional.empty());

        assertThat(moto.capabilities()).containsExactlyInAnyOrder(EngineCapability.values());
        assertThat(moto.toString()).contains("moto at http://127.0.0.1:").contains("probed [");
    }

    @Test
    void withoutPythonTheMotoEngineSaysWhatToInstall() {
        assertThat(MotoServer.isInstalled("/nonexistent/python3"))
                .as("told without starting it")
                .isFalse();
        assertThatThrownBy(() -> MotoServer.start("/nonexistent/python3", 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Could not start moto with /nonexistent/python3")
                .hasMessageContaining("pip install 'moto[server]'")
                .hasMessageContaining("locktable.test.python");
    }

    @Test
    void withAPythonThatLacksMotoTheMotoEngineSaysSoAndHowToInstallIt(@TempDir Path dir) throws Exception {
        assumeMotoInstalled(); // a Python to hide moto from
        Path python = dir.resolve("python-without-site-packages");
        Files.writeString(python, "#!/bin/sh\nexec " + MotoServer.python() + " -S \"$@\"\n");
        Files.setPosixFilePermissions(python, PosixFilePermissions.fromString("rwx------"));
        assertThat(MotoServer.isInstalled(python.toString()))
                .as("told without starting it")
                .isFalse();

        assertThatThrownBy(() -> MotoServer.start(python.toString(), 0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("moto exited with code 3 before it answered")
                .hasMessageContaining("moto is missing for")
                .hasMessageContaining("No module named 'moto'")
                .hasMessageContaining("-m pip install 'moto[server]'");
    }

    @Test
    void motoDiesWhenTheJvmThatStartedItEndsEvenWithoutItsShutdownHook() throws Exception {
        assumeMotoInstalled();
        diesWithItsJvm(MotoServer::start);
    }

    @Test
    void dynaliteDiesWhenTheJvmThatStartedItEndsEvenWithoutItsShutdownHook() throws Exception {
        diesWithItsJvm(DynaliteServer::start);
    }

    private static void diesWithItsJvm(IntFunction<? extends LocalServer> start) throws Exception {
        LocalServer server = start.apply(0);
        try {
            server.closeLifeline(); // what the operating system does to the pipe when the JVM dies

            assertThat(server.process().waitFor(10, TimeUnit.SECONDS))
                    .as("the server exits by itself")
                    .isTrue();
        } finally {
            server.close();
        }
    }

    @Test
    void aClientStalledMidRequestHoldsUpNoOtherOnMoto() throws Exception {
        assumeMotoInstalled();
        HttpEngine moto = moto(Optional.of(Set.of()));
        try (Socket stalled =
                        new Socket(moto.endpoint().getHost(), moto.endpoint().getPort());
                DynamoDbClient client = moto.newClient(
                        o -> o.apiCallTimeout(Duration.ofSeconds(10)).retryStrategy(AwsRetryStrategy.doNotRetry()))) {
            OutputStream out = stalled.getOutputStream();
            out.write(("POST / HTTP/1.1\r\nHost: " + moto.endpoint().getAuthority()
                            + "\r\nContent-Type: application/x-amz-json-1.0\r\nContent-Length: 1000\r\n\r\n{")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();

            assertThat(client.listTables().tableNames()).isNotNull();
        }
    }

    @Test
    void concurrentWritesToMotoAreAppliedOneAtATimeAndNoneIsLost() throws Exception {
        assumeMotoInstalled();
        HttpEngine engine = moto(Optional.of(Set.of()));
        TestTable table = engine.createTable("Counter", "pk", null);
        Map<String, AttributeValue> key = Map.of("pk", AttributeValue.fromS("counter"));
        int threads = 4;
        int increments = 25;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            DynamoDbClient client = engine.client();
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < increments; i++) {
                        client.updateItem(r -> r.tableName(table.name())
                                .key(key)
                                .updateExpression("ADD n :one")
                                .expressionAttributeValues(Map.of(":one", AttributeValue.fromN("1"))));
                    }
                    return null;
                }));
            }
            for (Future<?> each : done) {
                each.get(60, TimeUnit.SECONDS);
            }

            assertThat(client.getItem(r -> r.tableName(table.name()).key(key).consistentRead(true))
                            .item()
                            .get("n")
                            .n())
                    .isEqualTo(Integer.toString(threads * increments));
        } finally {
            pool.shutdownNow();
            engine.deleteTable(table.name());
        }
    }

    private static HttpEngine moto(Optional<Set<EngineCapability>> declared) {
        return HttpEngine.local("moto", MotoServer.shared().endpoint(), declared);
    }
}
