package io.locktable;

import java.net.URI;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The program of a lock holder in a JVM of its own, which {@code ReliabilityTest} starts as a child process to kill
 * or pause (the crash and pause cases): {@code HolderProcess <endpoint> <table> <pk> <sk> <lock> <leaseMs>
 * hold|lead}. It prints {@code ACQUIRED <fence>} once it holds the lock; in {@code lead} mode it writes to the fenced
 * resource every 100 ms, ignoring interruption and errors, and prints {@code SEND <fence>} before each write and
 * {@code WRITE <fence> applied|refused|error <exception>} after it.
 */
final class HolderProcess {

    private HolderProcess() {}

    public static void main(String[] args) throws Exception {
        DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(URI.create(args[0]))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build();
        String table = args[1];
        LockTable locks =
                LockTable.builder(client, table, args[2]).sortKey(args[3]).build();
        String lock = args[4];
        Duration lease = Duration.ofMillis(Long.parseLong(args[5]));
        if (args[6].equals("hold")) {
            Lease held = locks.acquire(lock, lease);
            System.out.println("ACQUIRED " + held.fencingToken());
            Thread.sleep(Long.MAX_VALUE);
        }
        FencedResource resource = new FencedResource(client, table, args[2], args[3]);
        locks.runAsLeader(lock, lease, term -> {
            System.out.println("ACQUIRED " + term.fencingToken());
            while (true) {
                try {
                    System.out.println("SEND " + term.fencingToken());
                    boolean applied = resource.write(lock, term.fencingToken(), "child");
                    System.out.println("WRITE " + term.fencingToken() + " " + (applied ? "applied" : "refused"));
                } catch (RuntimeException e) {
                    Thread.interrupted(); // ignores the interrupt that aborted the request, and writes again
                    System.out.println("WRITE " + term.fencingToken() + " error "
                            + e.getClass().getSimpleName());
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    // work that ignores interruption: only fencing stops its writes
                }
            }
        });
    }
}
