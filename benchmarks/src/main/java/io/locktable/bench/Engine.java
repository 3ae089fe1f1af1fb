package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The DynamoDB-compatible engine of a run and the clients both libraries get from it: the same builder, the SDK's
 * default synchronous HTTP client (Apache 5) with room for every benchmark thread, and a {@link RequestCounter}.
 */
public final class Engine {

    private static final int MAX_CONNECTIONS = 64;

    private Engine() {}

    /**
     * The engine of this JVM: dynalite started by lock-test unless {@code locktable.test.engine} says otherwise. It
     * must answer on loopback: the benchmarks send load, and load goes to this machine only.
     *
     * @return the engine
     * @throws IllegalStateException if the engine is not on loopback
     */
    public static DynamoDbEngine current() {
        DynamoDbEngine engine = DynamoDbEngines.current();
        URI endpoint = engine.endpoint();
        String host = endpoint == null ? null : endpoint.getHost();
        if (host == null || !(host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]"))) {
            throw new IllegalStateException("benchmarks send load to loopback engines only, not to " + endpoint);
        }
        return engine;
    }

    /**
     * Connects to a running engine, for JMH forks and child processes.
     *
     * @param endpoint the engine's URL, on loopback
     * @return the engine
     */
    public static DynamoDbEngine connect(String endpoint) {
        System.setProperty("locktable.test.engine", "endpoint");
        System.setProperty("locktable.test.endpoint", endpoint);
        return current();
    }

    /**
     * A new client of the engine; the caller closes it.
     *
     * @param engine the engine
     * @param interceptors interceptors, such as a {@link RequestCounter}
     * @return the client
     */
    public static DynamoDbClient client(DynamoDbEngine engine, ExecutionInterceptor... interceptors) {
        return engine.clientBuilder()
                .httpClientBuilder(Apache5HttpClient.builder()
                        .maxConnections(MAX_CONNECTIONS)
                        .connectionTimeout(Duration.ofSeconds(2)))
                .overrideConfiguration(o -> {
                    for (ExecutionInterceptor interceptor : interceptors) {
                        o.addExecutionInterceptor(interceptor);
                    }
                })
                .build();
    }
}
