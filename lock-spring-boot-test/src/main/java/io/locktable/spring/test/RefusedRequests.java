package io.locktable.spring.test;

import io.locktable.test.EngineCapability;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * The requests of a test's application context that its engine refused as unsupported, such as the main README's
 * fenced write ({@code TransactWriteItems}) on dynalite. The application's code may swallow the exception, or a
 * {@code @Scheduled} job may only log it as an ERROR while the test goes green; {@link
 * RefusedRequestsTestExecutionListener} fails the test with {@link #takeUnreported()} instead. Filled on the SDK's
 * threads and read on the test's, so its queue is concurrent.
 */
final class RefusedRequests implements UnreportedFailures {

    /** The error code dynalite (and DynamoDB Local) answer an operation they do not have with (HTTP 400). */
    static final String UNKNOWN_OPERATION = "UnknownOperationException";

    private final @Nullable URI endpoint;
    private final Queue<String> unreported = new ConcurrentLinkedQueue<>();

    /** @param endpoint where the starter's client sends its requests, null for AWS's own endpoint */
    RefusedRequests(@Nullable URI endpoint) {
        this.endpoint = endpoint;
    }

    /** Whether an error code means that the engine lacks the operation, rather than that the request failed. */
    static boolean unsupported(@Nullable String errorCode) {
        return UNKNOWN_OPERATION.equals(errorCode);
    }

    /** Records a refused operation, such as {@code TransactWriteItems}. */
    void record(String operation) {
        unreported.add(operation);
    }

    /**
     * What was refused since the last call, as the message of a test's failure; each refusal is in one message only.
     *
     * @return the message, or empty when nothing new was refused
     */
    @Override
    public Optional<String> takeUnreported() {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String operation; (operation = unreported.poll()) != null; ) {
            counts.merge(operation, 1, Integer::sum);
        }
        if (counts.isEmpty()) {
            return Optional.empty();
        }
        List<String> lines = new ArrayList<>();
        counts.forEach((operation, times) ->
                lines.add(refusal(operation) + (times > 1 ? " (" + times + " times)" : "") + ". " + fix(operation)));
        return Optional.of(String.join("\n", lines));
    }

    /** The sentence that says what was refused and where, also added to the exception the application gets. */
    String refusal(String operation) {
        return "The engine at " + (endpoint != null ? endpoint : "AWS's endpoint") + " refused " + operation
                + " as unsupported (" + UNKNOWN_OPERATION + "): the code under test cannot do there what it does in"
                + " production, yet the test would pass (a @Scheduled job only logs an ERROR)";
    }

    /** What to do about it: the capability to register, where lock-test has one for the operation, or moto. */
    static String fix(String operation) {
        Optional<EngineCapability> capability = capability(operation);
        String moto = "run the tests with -Dlocktable.test.engine=moto (pip install 'moto[server]')";
        return capability
                .map(needed -> "It needs " + needed + ": register an engine that has it with"
                        + " LockTableTestProperties.register(registry, EngineCapability." + needed + ") in the"
                        + " test's @DynamicPropertySource method (lock-test's moto when no engine is selected), or "
                        + moto)
                .orElseGet(() -> "Use an engine that has " + operation + ": " + moto);
    }

    /** The capability of lock-test's engines that an operation belongs to, if any (see {@link EngineCapability}). */
    static Optional<EngineCapability> capability(String operation) {
        return switch (operation) {
            case "TransactWriteItems", "TransactGetItems" -> Optional.of(EngineCapability.TRANSACTIONS);
            case "UpdateTimeToLive", "DescribeTimeToLive" -> Optional.of(EngineCapability.TIME_TO_LIVE);
            default -> Optional.empty();
        };
    }
}
