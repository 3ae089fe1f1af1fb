package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import java.time.Duration;
import java.util.UUID;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Uncontended acquire + release of one library on the shared dynalite: each benchmark thread takes and gives back
 * its own lock, so threads never contend. {@link JmhRunner} starts it with the engine's endpoint and the tables in
 * system properties, one library per fork, alternating.
 */
@State(Scope.Benchmark)
public class AcquireReleaseBenchmark {

    /** System property: the engine's endpoint. */
    public static final String ENDPOINT = "bench.endpoint";

    /** System property: the LockTable table. */
    public static final String OURS_TABLE = "bench.table.ours";

    /** System property: the peer's table. */
    public static final String PEER_TABLE = "bench.table.peer";

    /** The lease both libraries are given; it never runs out, a cycle takes milliseconds. */
    static final Duration LEASE = Duration.ofSeconds(20);

    /** Which library: {@code locktable} or {@code peer} (the peer at its defaults, lease 20 s). */
    @Param({"locktable", "peer"})
    public String library;

    private DynamoDbClient client;
    private LockDriver<Object> driver;

    /** Connects to the engine and builds the library. */
    @Setup(Level.Trial)
    public void setUp() {
        DynamoDbEngine engine = Engine.connect(System.getProperty(ENDPOINT));
        client = Engine.client(engine);
        driver = driver(library, client);
    }

    @SuppressWarnings("unchecked")
    static LockDriver<Object> driver(String library, DynamoDbClient client) {
        LockDriver<?> driver = switch (library) {
            case "locktable" -> new OursDriver(client, System.getProperty(OURS_TABLE), LEASE);
            case "peer" -> PeerDriver.defaults(client, System.getProperty(PEER_TABLE));
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
        return (LockDriver<Object>) driver;
    }

    /** Stops the library and closes the client. */
    @TearDown(Level.Trial)
    public void tearDown() {
        driver.close();
        client.close();
    }

    /** The lock of one benchmark thread. */
    @State(Scope.Thread)
    public static class ThreadLock {
        String name;

        /** Picks a name no other thread or fork uses. */
        @Setup(Level.Trial)
        public void setUp() {
            name = "jmh-" + UUID.randomUUID();
        }
    }

    /**
     * One acquire and one release of a free lock.
     *
     * @param lock this thread's lock
     */
    @Benchmark
    public void acquireRelease(ThreadLock lock) {
        Object held = driver.tryAcquire(lock.name);
        if (held == null) {
            throw new IllegalStateException("uncontended lock " + lock.name + " was busy");
        }
        driver.release(held);
    }
}
