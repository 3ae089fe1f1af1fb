package io.locktable.verification;

import io.locktable.LockTable;
import io.locktable.test.DynamoDbEngine;
import io.locktable.test.TcpProxy;
import io.locktable.test.TestTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The Jepsen-style lock workload (etcd's lock test, in Java): several clients in one JVM, each with its own {@link
 * LockTable}, DynamoDB client and {@link TcpProxy}, add unique elements to one set item under one lock while clients
 * pause past their lease and the nemesis cuts connections and delays answers. The history and the final read go to
 * {@link SetChecker}.
 */
public final class LockWorkload {

    private LockWorkload() {}

    /**
     * Runs the workload and checks its history; the history is saved under {@code target/verification}.
     *
     * @param engine the engine
     * @param table a table of the engine
     * @param settings the run
     * @return the checker's findings and the run's figures
     * @throws InterruptedException if interrupted while the clients run
     */
    public static WorkloadResult run(DynamoDbEngine engine, TestTable table, WorkloadSettings settings)
            throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + settings.duration().toNanos();
        SetItem set = new SetItem(table, UUID.randomUUID().toString());
        History history = new History();
        List<AutoCloseable> opened = new ArrayList<>();
        List<ClientNetwork> networks = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicBoolean somebodyPaused = new AtomicBoolean();
        AtomicInteger pauses = new AtomicInteger();
        Nemesis nemesis = null;
        try {
            for (int id = 0; id < settings.clients(); id++) {
                TcpProxy proxy = TcpProxy.start(engine.endpoint());
                opened.add(proxy);
                PauseInsideWrite pauseInsideWrite = new PauseInsideWrite();
                // the set's requests may outlast a pause inside them; the lock's own requests carry their own timeouts
                Duration attempt = settings.pause().plus(settings.lease());
                DynamoDbClient client = engine.clientBuilder()
                        .endpointOverride(proxy.endpoint())
                        .overrideConfiguration(o -> o.addExecutionInterceptor(pauseInsideWrite)
                                .apiCallAttemptTimeout(attempt)
                                .apiCallTimeout(attempt.multipliedBy(2)))
                        .build();
                opened.add(client);
                LockTable.Builder builder = LockTable.builder(client, table.name(), table.partitionKey());
                table.sortKey().ifPresent(builder::sortKey);
                LockTable locks = builder.build();
                opened.add(locks);
                ClientNetwork network = new ClientNetwork(proxy);
                networks.add(network);
                WorkloadClient worker = new WorkloadClient(
                        id,
                        locks,
                        client,
                        network,
                        pauseInsideWrite,
                        set,
                        settings,
                        history,
                        somebodyPaused,
                        pauses,
                        deadline);
                threads.add(new Thread(worker, "workload-client-" + id));
            }
            if (settings.networkFaults()) {
                nemesis = new Nemesis(networks, settings.seed(), settings.lease(), deadline);
                threads.add(new Thread(nemesis, "workload-nemesis"));
            }
            threads.forEach(Thread::start);
            for (Thread thread : threads) {
                thread.join(settings.duration().plus(Duration.ofMinutes(1)).toMillis());
                if (thread.isAlive()) {
                    thread.interrupt();
                    thread.join();
                }
            }
        } finally {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (Exception e) {
                    // closing what the run opened; nothing to check
                }
            }
        }
        SetItem.Snapshot last = set.read(engine.client());
        Verdict verdict = SetChecker.check(history.ops(), last.elements(), last.log());
        history.save(Path.of(
                "target",
                "verification",
                settings.variant().name().toLowerCase() + "-" + engine.name() + "-" + settings.seed() + ".jsonl"));
        return new WorkloadResult(
                settings,
                engine.name(),
                verdict,
                pauses.get(),
                nemesis == null ? 0 : nemesis.cuts.get(),
                nemesis == null ? 0 : nemesis.lateSpells.get(),
                Duration.ofNanos(System.nanoTime() - started));
    }
}
