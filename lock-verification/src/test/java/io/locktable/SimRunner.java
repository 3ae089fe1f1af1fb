package io.locktable;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one seed on a thread of its own whose {@link ThreadLocalRandom} starts from the seed, so that the jitter
 * lock-core draws there (polls, retries) replays too. Setting it needs {@code --add-opens
 * java.base/java.lang=ALL-UNNAMED} (the module's surefire configuration has it); without it the jitter is not
 * replayed, and {@link #jitterReplayed()} says so.
 */
final class SimRunner {

    private static final Field SEED = field("threadLocalRandomSeed");
    /** JDK 17's ThreadLocalRandom adds the thread's id to its seed at each draw: the id is fixed too. */
    private static final Field ID = field("tid");

    private SimRunner() {}

    private static volatile boolean refused;

    static boolean jitterReplayed() {
        return SEED != null && ID != null && !refused;
    }

    /**
     * Runs one seed. The first call runs a throwaway seed first: classes that initialise on first use draw from the
     * thread's random numbers, so the first run in a JVM would otherwise differ from every later one.
     */
    static synchronized SimResult run(long seed, Duration virtual) {
        if (!warm) {
            warm = true;
            runOnce(-1, Duration.ofSeconds(120));
        }
        return runOnce(seed, virtual);
    }

    private static boolean warm;

    private static SimResult runOnce(long seed, Duration virtual) {
        AtomicReference<SimResult> result = new AtomicReference<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread thread = new Thread(
                () -> {
                    ThreadLocalRandom.current(); // initialised, so the seed set below is the one it goes on from
                    if (SEED != null && ID != null) {
                        try {
                            ID.setLong(Thread.currentThread(), 1_000_003L);
                            SEED.setLong(Thread.currentThread(), seed);
                        } catch (IllegalAccessException | RuntimeException e) {
                            refused = true; // a JVM that keeps final fields final: the jitter is not replayed
                        }
                    }
                    try {
                        result.set(new Simulation(seed).run(virtual));
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                },
                "simulation-" + seed);
        thread.start();
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        if (failure.get() != null) {
            throw new AssertionError("seed " + seed + " threw", failure.get());
        }
        return result.get();
    }

    static long tlrSeed() {
        try {
            return SEED == null ? 0 : SEED.getLong(Thread.currentThread());
        } catch (IllegalAccessException e) {
            return 0;
        }
    }

    private static Field field(String name) {
        try {
            Field field = Thread.class.getDeclaredField(name);
            field.setAccessible(true);
            return field;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
