package io.locktable.bench;

import io.locktable.test.DynamoDbEngine;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The holder of a failover trial, in a JVM of its own: acquires one lock, prints {@code HELD}, and keeps it (the
 * library renews it) until it reads {@code release} on its standard input (then releases, prints {@code RELEASED}
 * and exits) or is killed. It also exits when its standard input closes, or after ten minutes, so it never outlives
 * the harness.
 *
 * <p>Arguments: {@code locktable|peer|peer-defaults endpoint table lockName leaseMillis}.
 */
public final class FailoverChild {

    private static final long MAX_LIFETIME_MINUTES = 10;

    private FailoverChild() {}

    /**
     * Runs the holder.
     *
     * @param args the library, the engine endpoint, the table, the lock name and the lease in milliseconds
     * @throws Exception if the lock cannot be acquired
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: locktable|peer|peer-defaults endpoint table lock leaseMillis");
        }
        Thread guard = new Thread(FailoverChild::haltLater, "lifetime-guard");
        guard.setDaemon(true);
        guard.start();
        DynamoDbEngine engine = Engine.connect(args[1]);
        DynamoDbClient client = Engine.client(engine);
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        LockDriver<Object> driver = driver(args[0], client, args[2], lease);
        Object held = driver.tryAcquire(args[3]);
        if (held == null) {
            System.out.println("BUSY");
            System.exit(2);
        }
        System.out.println("HELD");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().equals("release")) {
                driver.release(held);
                System.out.println("RELEASED");
                System.out.flush();
                break;
            }
        }
        Runtime.getRuntime().halt(0);
    }

    @SuppressWarnings("unchecked")
    private static LockDriver<Object> driver(String library, DynamoDbClient client, String table, Duration lease) {
        LockDriver<?> driver = switch (library) {
            case "locktable" -> new OursDriver(client, table, lease);
            case "peer" -> PeerDriver.sameAsOurs(client, table, lease);
            case "peer-defaults" -> PeerDriver.defaults(client, table);
            default -> throw new IllegalArgumentException("unknown library " + library);
        };
        return (LockDriver<Object>) driver;
    }

    private static void haltLater() {
        try {
            TimeUnit.MINUTES.sleep(MAX_LIFETIME_MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().halt(3);
    }
}
