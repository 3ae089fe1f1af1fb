package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.FaultInjector;
import io.locktable.test.TestTable;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.ProvisionedThroughputExceededException;

/**
 * The fault suite: faults that break distributed locks, injected per lock table, with the invariants of {@link
 * History} checked on every case. Histories are written to {@code target/reliability/*.jsonl}; the figures of a run
 * are in {@code docs/reliability.md}.
 */
@DynamoDbEngineTest
class ReliabilityTest {

    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration POLL = LEASE.dividedBy(3);
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private final DynamoDbEngine engine;
    private final TestTable table;
    /** Closed after the {@code @AfterEach} method has stopped what uses it. */
    @AutoClose
    private final Contenders contenders;

    private final FencedResource resource;
    private final List<Process> children = new ArrayList<>();

    ReliabilityTest(DynamoDbEngine engine, TestTable table) {
        this.engine = engine;
        this.table = table;
        this.contenders = new Contenders(engine, table);
        this.resource = new FencedResource(engine.client(), table);
    }

    @AfterEach
    void close() throws Exception {
        for (Process child : children) {
            child.destroyForcibly();
        }
    }

    private static void assertNoViolations(History history) {
        history.save();
        assertThat(history.violations())
                .as("invariant violations, history in target/reliability")
                .isEmpty();
    }

    private static void report(String kase, String detail) {
        System.out.println("[reliability] " + kase + ": " + detail);
    }

    @ParameterizedTest(name = "{0} racers, {1} rounds")
    @CsvSource({"2, 100", "8, 40", "50, 8"})
    void racersOnAFreeLockGetOneWinnerPerRoundAndRisingTokens(int racers, int rounds) throws Exception {
        History history = new History("racers-" + racers);
        List<Contenders.Contender> tables = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            tables.add(contenders.add());
        }
        String name = Contenders.lockName();
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            for (int round = 0; round < rounds; round++) {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Optional<Lease>>> results = new ArrayList<>();
                for (Contenders.Contender racer : tables) {
                    results.add(pool.submit(() -> {
                        start.await();
                        return racer.locks().tryAcquire(name, LEASE);
                    }));
                }
                start.countDown();
                List<Lease> winners = new ArrayList<>();
                for (Future<Optional<Lease>> result : results) {
                    result.get(30, TimeUnit.SECONDS).ifPresent(winners::add);
                }
                assertThat(winners).as("round %d", round).hasSizeLessThanOrEqualTo(1);
                for (Lease winner : winners) {
                    history.held(winner);
                    long sent = System.nanoTime();
                    history.write(
                            name,
                            winner.owner(),
                            winner.fencingToken(),
                            sent,
                            resource.write(name, winner.fencingToken(), winner.owner()));
                    winner.release();
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(history.events("grant")).hasSizeGreaterThanOrEqualTo(rounds / 2);
        assertThat(history.events("write")).allMatch(w -> w.outcome().equals("applied"));
        report("racers " + racers, history.events("grant").size() + " grants in " + rounds + " rounds");
        assertNoViolations(history);
    }

    @Test
    void aRenewalAppliedWhoseReplyIsHeldBackPastTheLeaseEndsTheLeaseAtItsSendTime() throws Exception {
        History history = new History("late-renewal-reply");
        Contenders.Contender holder = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        Lease old = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        history.held(old);
        holder.faults().delayReply("UpdateItem", LEASE.multipliedBy(3), 1);

        Lease next = waiting.locks().acquire(name, LEASE);
        history.held(next);

        assertThat(old.whenEnded().get(1, TimeUnit.SECONDS)).isEqualTo(LeaseEnd.EXPIRED);
        assertThat(next.fencingToken()).isEqualTo(2);
        assertNoViolations(history);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"throttling", "5xx"})
    void throttlingAnd5xxBurstsShorterThanTheLeaseAreSurvived(String kind) throws Exception {
        Duration lease = Duration.ofSeconds(6);
        History history = new History("short-burst-" + kind);
        Contenders.Contender holder = contenders.add();
        Lease held = holder.locks().tryAcquire(Contenders.lockName(), lease).orElseThrow();
        history.held(held);
        holder.faults().failWith("UpdateItem", () -> synthetic(kind), 3);

        Thread.sleep(lease.toMillis());

        report("short burst " + kind, holder.requests().count("UpdateItem") + " writes in one lease, lease kept");
        assertThat(holder.faults().injected()).isEqualTo(3);
        assertThat(held.isHeld()).isTrue();
        assertNoViolations(history);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"throttling", "5xx"})
    void throttlingAnd5xxBurstsLongerThanTheLeaseEndItBeforeItsEndWithoutARetryStorm(String kind) throws Exception {
        History history = new History("long-burst-" + kind);
        Contenders.Contender holder = contenders.add();
        String name = Contenders.lockName();
        Lease lease = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        history.held(lease);
        long acquired = System.nanoTime();
        holder.requests().clear();
        holder.faults().failWith("UpdateItem", () -> synthetic(kind), Integer.MAX_VALUE);

        LeaseEnd end = lease.whenEnded().get(LEASE.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
        Duration ended = Duration.ofNanos(System.nanoTime() - acquired);
        Thread.sleep(LEASE.toMillis());

        long attempts = holder.requests().count("UpdateItem");
        report(
                "long burst " + kind,
                attempts + " renewal attempts; lease " + end + " after " + ended.toMillis() + " ms");
        assertThat(end).isEqualTo(LeaseEnd.EXPIRED);
        assertThat(ended).isLessThanOrEqualTo(LEASE);
        assertThat(attempts).as("bounded attempts, no retry storm").isBetween(1L, 40L);
        holder.faults().clear();
        history.held(contenders.add().locks().acquire(name, LEASE, LEASE.multipliedBy(3)));
        assertNoViolations(history);
    }

    private static RuntimeException synthetic(String kind) {
        if (kind.equals("throttling")) {
            return FaultInjector.engineError(
                    ProvisionedThroughputExceededException.builder(),
                    400,
                    "ProvisionedThroughputExceededException",
                    "injected throttling");
        }
        return FaultInjector.engineError(DynamoDbException.builder(), 500, "InternalServerError", "injected 500");
    }

    @Test
    void aBlackholedHolderIsTakenOverAndOnceHealedDisturbsNobody() throws Exception {
        History history = new History("blackhole");
        Contenders.Contender holder = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        Lease old = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        history.held(old);
        holder.faults().blackhole("UpdateItem").blackhole("GetItem");

        long start = System.nanoTime();
        Lease next = waiting.locks().acquire(name, LEASE);
        Duration takeover = Duration.ofNanos(System.nanoTime() - start);
        history.held(next);
        history.write(
                name,
                next.owner(),
                next.fencingToken(),
                System.nanoTime(),
                resource.write(name, next.fencingToken(), next.owner()));
        holder.faults().clear();
        old.release();
        history.write(
                name,
                old.owner(),
                old.fencingToken(),
                System.nanoTime(),
                resource.write(name, old.fencingToken(), old.owner()));

        report("blackhole", "taken over in " + takeover.toMillis() + " ms");
        assertThat(takeover).isLessThan(LEASE.plus(POLL).plus(MARGIN));
        assertThat(contenders.item(name).get("owner").s())
                .startsWith(waiting.locks().owner() + ".");
        assertThat(history.events("write").get(1).outcome()).isEqualTo("refused");
        assertThat(next.isHeld()).isTrue();
        assertNoViolations(history);
    }

    @Test
    void aReleaseDelayedUntilAfterATakeoverChangesNothing() throws Exception {
        History history = new History("delayed-release");
        Contenders.Contender holder = contenders.add();
        Contenders.Contender waiting = contenders.add();
        String name = Contenders.lockName();
        Lease old = holder.locks().tryAcquire(name, LEASE).orElseThrow();
        history.held(old);
        // the release's write leaves at once but reaches the table only after the takeover
        holder.faults().delayRequest("UpdateItem", LEASE.multipliedBy(2).plus(POLL), 1);
        Thread releaser = new Thread(old::release);
        releaser.start();

        Lease next = waiting.locks().acquire(name, LEASE);
        history.held(next);
        releaser.join(10_000);

        assertThat(contenders.item(name).get("owner").s())
                .startsWith(waiting.locks().owner() + ".");
        assertThat(next.isHeld()).isTrue();
        assertNoViolations(history);
    }

    @Test
    void leaderWorkThatIgnoresInterruptionHasItsWritesRefusedAfterATakeover() throws Exception {
        History history = new History("ignores-interruption");
        Contenders.Contender first = contenders.add();
        Contenders.Contender second = contenders.add();
        String name = Contenders.lockName();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> leaders = new ArrayList<>();
        for (Contenders.Contender instance : List.of(first, second)) {
            Thread thread = new Thread(() -> {
                try {
                    instance.locks().runAsLeader(name, LEASE, lease -> {
                        history.held(lease);
                        while (!stop.get()) {
                            long sent = System.nanoTime();
                            boolean applied;
                            try {
                                applied = resource.write(name, lease.fencingToken(), lease.owner());
                            } catch (SdkClientException e) {
                                // the interrupt aborted this write (it may land here rather than in the
                                // sleep): ignored on purpose too, the work goes on and writes again
                                Thread.interrupted();
                                continue;
                            }
                            history.write(name, lease.owner(), lease.fencingToken(), sent, applied);
                            try {
                                Thread.sleep(50);
                            } catch (InterruptedException e) {
                                // ignores it on purpose
                            }
                        }
                    });
                } catch (Exception e) {
                    // stopped
                }
            });
            leaders.add(thread);
            thread.start();
        }
        await().atMost(Duration.ofSeconds(5))
                .until(() -> !history.events("grant").isEmpty());
        Contenders.Contender leader = first.locks().heldLeases().isEmpty() ? second : first;
        leader.faults().blackhole("UpdateItem");
        await().atMost(LEASE.multipliedBy(3).plus(MARGIN))
                .until(() -> history.events("grant").size() >= 2);
        Thread.sleep(500);
        stop.set(true);
        for (Thread thread : leaders) {
            thread.interrupt();
            thread.join(5_000);
        }

        long newFence = history.events("grant").get(1).fence();
        List<History.Event> writes = history.events("write");
        long firstNewWrite = writes.stream()
                .filter(w -> w.fence() == newFence)
                .mapToLong(History.Event::endNanos)
                .min()
                .orElseThrow();
        assertThat(writes.stream().filter(w -> w.fence() < newFence && w.startNanos() > firstNewWrite))
                .isNotEmpty()
                .allMatch(w -> w.outcome().equals("refused"));
        report("ignores interruption", writes.size() + " writes, stale ones refused");
        assertNoViolations(history);
    }

    private Process child(String lock, String mode) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process process = new ProcessBuilder(
                        java,
                        "-cp",
                        System.getProperty("java.class.path"),
                        HolderProcess.class.getName(),
                        engine.endpoint().toString(),
                        table.name(),
                        table.partitionKey(),
                        table.sortKey().orElseThrow(),
                        lock,
                        Long.toString(LEASE.toMillis()),
                        mode)
                .redirectErrorStream(true)
                .start();
        children.add(process);
        return process;
    }

    private static List<String> lines(Process process, AtomicInteger count) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                    count.incrementAndGet();
                }
            } catch (Exception e) {
                // the child died
            }
        });
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    @Test
    void aHolderKilledWithSigkillIsTakenOverWithinLeaseAndPoll() throws Exception {
        String name = Contenders.lockName();
        Process holder = child(name, "hold");
        AtomicInteger count = new AtomicInteger();
        List<String> output = lines(holder, count);
        await().atMost(Duration.ofSeconds(20)).until(() -> output.stream().anyMatch(l -> l.startsWith("ACQUIRED")));
        Contenders.Contender waiting = contenders.add();
        assertThat(waiting.locks().tryAcquire(name, LEASE)).isEmpty();

        long killed = System.nanoTime();
        holder.destroyForcibly(); // SIGKILL
        Lease lease = waiting.locks().acquire(name, LEASE);
        Duration takeover = Duration.ofNanos(System.nanoTime() - killed);

        report("kill -9", "taken over in " + takeover.toMillis() + " ms");
        assertThat(takeover).isLessThan(LEASE.plus(POLL).plus(MARGIN));
        assertThat(lease.fencingToken()).isEqualTo(2);
    }

    @Test
    void aLeaderPausedWithSigstopHasItsWritesRefusedAfterSigcont() throws Exception {
        String name = Contenders.lockName();
        Process leader = child(name, "lead");
        AtomicInteger count = new AtomicInteger();
        List<String> output = lines(leader, count);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> output.stream().anyMatch(l -> l.startsWith("WRITE 1 applied")));
        Contenders.Contender successor = contenders.add();
        assertThat(successor.locks().tryAcquire(name, LEASE)).isEmpty();

        signal("STOP", leader.pid());
        Lease lease = successor.locks().acquire(name, LEASE);
        assertThat(resource.write(name, lease.fencingToken(), "successor")).isTrue();
        int before = output.size();
        signal("CONT", leader.pid());
        // the pause may have caught a write in flight, applied before the takeover and answered after the
        // resume: the writes that count are those the leader sends once it runs again
        await().atMost(Duration.ofSeconds(10))
                .until(() -> sentAfter(output, before).contains("WRITE 1 refused"));

        List<String> afterResume = sentAfter(output, before).stream()
                .filter(l -> l.startsWith("WRITE 1"))
                .toList();
        report(
                "kill -STOP/-CONT",
                afterResume.size() + " write attempts of the paused leader after it resumed, none applied");
        assertThat(afterResume).as(String.join("\n", output)).isNotEmpty().noneMatch(l -> l.endsWith("applied"));
        assertThat(resource.lastWriter(name)).as(String.join("\n", output)).isEqualTo("successor");
        assertThat(lease.fencingToken()).isEqualTo(2);
    }

    /** A child's output from its first {@code SEND} at or after the given line on. */
    private static List<String> sentAfter(List<String> output, int from) {
        List<String> lines = List.copyOf(output);
        for (int i = from; i < lines.size(); i++) {
            if (lines.get(i).startsWith("SEND ")) {
                return lines.subList(i, lines.size());
            }
        }
        return List.of();
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).start();
        assertThat(kill.waitFor()).isZero();
    }

    /**
     * A seeded soak: contenders (each a lock table with a client of its own, as separate processes have) over several
     * locks, every fault of a real network drawn at random before each acquire, the invariants checked on the whole
     * history. Fifteen seconds in the default run; for the report, half an hour:
     *
     * <pre>{@code
     * ./mvnw -B -pl lock-test,lock-core verify -Dtest=ReliabilityTest#aSeededSoak* \
     *     -Dsurefire.failIfNoSpecifiedTests=false -Dlocktable.soak.duration=PT30M [-Dlocktable.soak.seed=N]
     * }</pre>
     *
     * The seed is printed; the same seed draws the same faults for each contender in the same order (threads still
     * interleave as they will).
     */
    @Test
    void aSeededSoakOfContendersOverSeveralLocksWithRandomFaultsKeepsEveryInvariant() throws Exception {
        Duration length = Duration.parse(System.getProperty("locktable.soak.duration", "PT15S"));
        int contenderCount = Integer.getInteger("locktable.soak.contenders", 20);
        long seed = Long.getLong("locktable.soak.seed", System.nanoTime());
        System.err.println("[soak] seed " + seed + " (replay with -Dlocktable.soak.seed=" + seed + ")");
        int lockCount = 10;
        History history = new History("soak");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < lockCount; i++) {
            names.add(Contenders.lockName());
        }
        List<Contenders.Contender> all = new ArrayList<>();
        for (int i = 0; i < contenderCount; i++) {
            all.add(contenders.add());
        }
        long end = System.nanoTime() + length.toNanos();
        ExecutorService pool = Executors.newFixedThreadPool(contenderCount);
        Map<SoakFault, AtomicInteger> drawn = new EnumMap<>(SoakFault.class);
        for (SoakFault fault : SoakFault.values()) {
            drawn.put(fault, new AtomicInteger());
        }
        List<Future<?>> work = new ArrayList<>();
        for (int c = 0; c < contenderCount; c++) {
            Contenders.Contender contender = all.get(c);
            Random random = new Random(seed + c);
            work.add(pool.submit(() -> {
                while (System.nanoTime() < end) {
                    String name = names.get(random.nextInt(lockCount));
                    SoakFault fault = SoakFault.draw(random);
                    drawn.get(fault).incrementAndGet();
                    fault.inject(contender.faults(), random);
                    try {
                        Optional<Lease> lease = contender.locks().tryAcquire(name, LEASE);
                        if (lease.isPresent()) {
                            history.held(lease.get());
                            for (int w = 0; w < 3 && lease.get().isHeld(); w++) {
                                long sent = System.nanoTime();
                                history.write(
                                        name,
                                        lease.get().owner(),
                                        lease.get().fencingToken(),
                                        sent,
                                        resource.write(
                                                name,
                                                lease.get().fencingToken(),
                                                lease.get().owner()));
                                Thread.sleep(random.nextInt(300));
                            }
                            if (fault == SoakFault.INTERRUPTED_RELEASE) {
                                Thread.currentThread().interrupt();
                            }
                            lease.get().release();
                            if (Thread.interrupted() && fault != SoakFault.INTERRUPTED_RELEASE) {
                                return;
                            }
                        } else {
                            Thread.sleep(50 + random.nextInt(200));
                        }
                    } catch (InterruptedException e) {
                        return;
                    } catch (RuntimeException e) {
                        // an injected fault reached the caller: contend again
                    }
                }
            }));
        }
        for (Future<?> future : work) {
            future.get(length.toSeconds() + 60, TimeUnit.SECONDS);
        }
        pool.shutdownNow();
        for (Contenders.Contender contender : all) {
            contender.faults().clear();
        }
        Thread.sleep(LEASE.toMillis() + 500); // let every lease end

        report(
                "soak",
                "seed " + seed + ": " + history.events("grant").size() + " grants, "
                        + history.events("write").size() + " writes over " + lockCount + " locks by "
                        + contenderCount + " contenders in " + length + "; faults drawn " + drawn);
        assertThat(history.events("grant")).hasSizeGreaterThan(lockCount);
        assertNoViolations(history);
    }

    /** The faults the soak draws from, one before each acquire. */
    private enum SoakFault {
        NONE,
        WRITE_APPLIED_ANSWER_LOST,
        REPLY_DELAYED,
        REQUEST_DELAYED,
        READS_FAIL,
        THROTTLED,
        ENGINE_500,
        INTERRUPTED_RELEASE;

        static SoakFault draw(Random random) {
            // half the rounds without a fault, the other half spread over the faults
            return random.nextBoolean() ? NONE : values()[1 + random.nextInt(values().length - 1)];
        }

        void inject(FaultInjector faults, Random random) {
            switch (this) {
                case WRITE_APPLIED_ANSWER_LOST ->
                    faults.loseReply("UpdateItem", 1); // the next acquire, renewal or release
                case REPLY_DELAYED -> faults.delayReply("UpdateItem", Duration.ofMillis(random.nextInt(1500)), 1);
                case REQUEST_DELAYED -> faults.delayRequest("UpdateItem", Duration.ofMillis(random.nextInt(1500)), 1);
                case READS_FAIL -> faults.failBeforeSend("GetItem", 2);
                case THROTTLED ->
                    faults.failWith(
                            "UpdateItem",
                            () -> FaultInjector.engineError(
                                    DynamoDbException.builder(), 400, "ThrottlingException", "Rate exceeded"),
                            2);
                case ENGINE_500 ->
                    faults.failWith(
                            "UpdateItem",
                            () -> FaultInjector.engineError(
                                    DynamoDbException.builder(), 500, "InternalServerError", "injected"),
                            2);
                case NONE, INTERRUPTED_RELEASE -> {}
            }
        }
    }
}
