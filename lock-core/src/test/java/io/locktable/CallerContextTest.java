package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.micrometer.context.ContextRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link LockTable.Builder#propagateContextToListeners}: a thread local registered with Micrometer's context
 * propagation, set by the caller of an acquire, is current while the listeners hear that acquire's start and finish
 * on the event thread, and only then; not for a leadership, not when off; off, the table needs no context-propagation.
 * In memory, no engine.
 */
class CallerContextTest {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final String KEY = "test.locktable.trace";
    /** What the caller sets, as a tracer sets its span: registered with context propagation. */
    private static final ThreadLocal<@Nullable String> TRACE = new ThreadLocal<>();

    private final String tableName = "Context-" + UUID.randomUUID().toString().substring(0, 8);
    private final Recorder heard = new Recorder();

    @BeforeAll
    static void register() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(KEY, TRACE);
    }

    @AfterAll
    static void unregister() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(KEY);
    }

    @Test
    void onTheCallersContextIsCurrentOnTheEventThreadWhileItsAcquireStartsAndFinishes() throws Exception {
        try (LockTable locks = table(true);
                LockTable other = LockTable.inMemory(tableName).build()) {
            as("try", () -> locks.tryAcquire("try", LEASE)).orElseThrow().release();
            as("blocking", () -> locks.acquire("blocking", LEASE, WAIT)).release();
            as("locked", () -> locks.runLocked("locked", LEASE, Duration.ZERO, () -> "ran"));
            CompletableFuture<Optional<Lease>> tryAsync =
                    as("tryAsync", () -> locks.tryAcquireAsync("tryAsync", LEASE));
            // held elsewhere: these finish on the table's threads, after a pause, and one times out
            Lease held = other.tryAcquire("async", LEASE).orElseThrow();
            other.tryAcquire("timedOut", LEASE).orElseThrow();
            CompletableFuture<Lease> async = as("async", () -> locks.acquireAsync("async", LEASE, WAIT));
            CompletableFuture<Lease> timedOut =
                    as("timedOut", () -> locks.acquireAsync("timedOut", LEASE, Duration.ofMillis(200)));

            assertThat(timedOut)
                    .failsWithin(WAIT)
                    .withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(TimeoutException.class);
            held.release();
            async.get(WAIT.toSeconds(), TimeUnit.SECONDS).release();
            tryAsync.get(WAIT.toSeconds(), TimeUnit.SECONDS).orElseThrow().release();
            await().atMost(WAIT).until(() -> heard.count("finished") == 6 && heard.count("released") == 5);
        }

        Thread caller = Thread.currentThread();
        assertThat(heard.events)
                .filteredOn(event -> !event.kind().equals("released"))
                .hasSize(12)
                .allSatisfy(event -> {
                    assertThat(event.thread()).as("heard on the event thread").isNotSameAs(caller);
                    assertThat(event.trace()).as(event.toString()).isEqualTo(event.name());
                });
        assertThat(heard.events)
                .as("the event thread is restored after each: a later event sees none")
                .filteredOn(event -> event.kind().equals("released"))
                .hasSize(5)
                .allSatisfy(event -> assertThat(event.trace()).isNull());
    }

    @Test
    void aLeadershipHasNoCallerAndATableNotToldToPropagateShowsNone() throws Exception {
        try (LockTable locks = table(true)) {
            Leadership leadership = as("leader", () -> locks.lead("leader", LEASE));
            await().atMost(WAIT).until(leadership::isLeader);
            leadership.stopAsync().get();
        }
        try (LockTable locks = table(false)) {
            as("try", () -> locks.tryAcquire("try", LEASE)).orElseThrow().release();
            as("async", () -> locks.acquireAsync("async", LEASE, WAIT)).get().release();
        }
        await().atMost(WAIT).until(() -> heard.count("finished") == 3);

        assertThat(heard.events)
                .filteredOn(event -> !event.kind().equals("released"))
                .extracting(Heard::kind, Heard::name, Heard::trace)
                .containsExactlyInAnyOrder(
                        tuple("started", "leader", null),
                        tuple("finished", "leader", null),
                        tuple("started", "try", null),
                        tuple("finished", "try", null),
                        tuple("started", "async", null),
                        tuple("finished", "async", null));
    }

    /**
     * lock-core's classes in a loader of their own that finds no context-propagation: a table not told to propagate
     * acquires without loading it or the class over it, and one told to is refused with a message.
     */
    @Test
    void offATableNeedsNoContextPropagationOnTheClassPathAndOnIsRefusedWithoutIt() throws Exception {
        WithoutContextPropagation loader = new WithoutContextPropagation();
        Class<?> lockTable = loader.loadClass(LockTable.class.getName());
        Object builder = lockTable.getMethod("inMemory", String.class).invoke(null, tableName);
        Method propagate = builder.getClass().getMethod("propagateContextToListeners", boolean.class);
        propagate.invoke(builder, false);
        AutoCloseable locks =
                (AutoCloseable) builder.getClass().getMethod("build").invoke(builder);
        try (locks) {
            Object acquired = lockTable
                    .getMethod("tryAcquire", String.class, Duration.class)
                    .invoke(locks, "job", LEASE);
            assertThat((Optional<?>) acquired).isPresent();
            Object waited = lockTable
                    .getMethod("acquireAsync", String.class, Duration.class, Duration.class)
                    .invoke(locks, "other", LEASE, WAIT);
            assertThat((CompletableFuture<?>) waited).succeedsWithin(WAIT);
        }
        assertThat(loader.asked).noneMatch(name -> name.startsWith("io.micrometer.context."));
        assertThat(loader.asked).doesNotContain(PropagatedContext.class.getName());

        assertThatThrownBy(() -> propagate.invoke(builder, true))
                .isInstanceOf(InvocationTargetException.class)
                .cause()
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs io.micrometer:context-propagation on the class path");
    }

    private LockTable table(boolean propagate) {
        return LockTable.inMemory(tableName)
                .listener(heard)
                .propagateContextToListeners(propagate)
                .build();
    }

    /** Calls with {@code trace} set on this thread, as a traced request would; each test names a lock after it. */
    private <T> T as(String trace, Callable<T> call) throws Exception {
        TRACE.set(trace);
        try {
            return call.call();
        } finally {
            TRACE.remove();
        }
    }

    /**
     * One event heard.
     *
     * @param trace what the listener saw current: the caller's, which the tests name as the lock
     */
    private record Heard(String kind, String name, @Nullable String trace, Thread thread) {}

    /** Hears the acquires' starts and finishes, and the releases, noting what was current. */
    private static final class Recorder implements LockTableListener {
        final List<Heard> events = new CopyOnWriteArrayList<>();

        long count(String kind) {
            return events.stream().filter(event -> event.kind().equals(kind)).count();
        }

        @Override
        public void onAcquireStarted(String name, long acquireId) {
            heard("started", name);
        }

        @Override
        public void onAcquireFinished(
                String name, long acquireId, AcquireOutcome outcome, Duration elapsed, boolean waited) {
            heard("finished", name);
        }

        @Override
        public void onReleased(Lease lease) {
            heard("released", lease.name());
        }

        private void heard(String kind, String name) {
            events.add(new Heard(kind, name, TRACE.get(), Thread.currentThread()));
        }
    }

    /** Loads lock-core's classes itself, from the parent's class path, and finds no class of context-propagation. */
    private static final class WithoutContextPropagation extends ClassLoader {
        final Set<String> asked = ConcurrentHashMap.newKeySet();

        WithoutContextPropagation() {
            super(CallerContextTest.class.getClassLoader());
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            asked.add(name);
            if (name.startsWith("io.micrometer.context.")) {
                throw new ClassNotFoundException(name + " (hidden by the test)");
            }
            if (!name.startsWith("io.locktable.") || name.startsWith(CallerContextTest.class.getName())) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> loaded = findLoadedClass(name);
                if (loaded != null) {
                    return loaded;
                }
                try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                    if (in == null) {
                        throw new ClassNotFoundException(name);
                    }
                    byte[] bytes = in.readAllBytes();
                    return defineClass(name, bytes, 0, bytes.length);
                } catch (IOException e) {
                    throw new ClassNotFoundException(name, e);
                }
            }
        }
    }
}
