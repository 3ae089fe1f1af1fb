package io.locktable;

import io.locktable.LockStore.StoredLock;
import io.locktable.Scheduler.Workers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbAsyncTable;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.MappedTableResource;
import software.amazon.awssdk.enhanced.dynamodb.TableMetadata;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Named locks in one DynamoDB table, each held through a {@link Lease} with a fencing token, and leader election on
 * top of them.
 *
 * <pre>{@code
 * LockTable locks = LockTable.builder(dynamoDbClient, "Shop", "pk").sortKey("sk").build();
 * Optional<Lease> maybe = locks.tryAcquire("cache-refresh", Duration.ofSeconds(30));
 * if (maybe.isEmpty()) {
 *     return; // another process holds it; try again on the next round
 * }
 * try (Lease lease = maybe.get()) {
 *     lease.transactWrite(TransactWriteItem.builder().put(putOrder).build());
 * }
 * }</pre>
 *
 * <p><b>Semantics</b> are the DynamoDB Lock Client's: a lease has a duration and a record version; its holder renews
 * it every third of the lease; a contender takes it over only after seeing one record version for a whole lease on
 * its own monotonic clock. No two clocks are compared. A frozen host can still hold a lease that has ended without
 * knowing it: that is what {@link Lease#heldCheck()} and {@link Lease#fencingToken()} are for.
 *
 * <p><b>The item.</b> A lock is one item of the caller's table: partition key {@code LOCK#<name>}, sort key (if any)
 * {@code LOCK}, both strings; attributes {@code _type}, {@code owner}, {@code rvn}, {@code fence}, {@code leaseMs},
 * and {@code holder} and a time-to-live attribute if the {@link LockTableOptions} ask. Another item at that key makes
 * an acquire throw {@link LockItemConflictException}. A release keeps the item, so the token never goes back. The
 * table must have a single writing region ({@link #verify()} checks it).
 *
 * <p><b>Threads.</b> Thread-safe. Hold one per table and process (a takeover depends on what it has seen). Renewals
 * run on a few daemon threads ({@link Builder#schedulerThreads(int)}); each request is bounded by a timeout so it
 * never outlasts the lease it serves.
 */
public final class LockTable implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockTable.class);

    /** The JDK's default asynchronous executor, that of {@code CompletableFuture.runAsync}: the default completions. */
    private static final Executor JDK_ASYNC = new CompletableFuture<Void>().defaultExecutor();

    /** The shortest lease: below a second a lease cannot outlast the round trips and retries of its renewals. */
    public static final Duration MIN_LEASE_DURATION = Timing.MIN_LEASE;

    /** The longest lease, a day. */
    public static final Duration MAX_LEASE_DURATION = Timing.MAX_LEASE;

    /**
     * Tells whether a duration is one a lease may have: from {@link #MIN_LEASE_DURATION} to {@link #MAX_LEASE_DURATION}.
     *
     * @param leaseDuration the duration, may be null
     * @return true if it is not null and in the range
     */
    public static boolean isLeaseDuration(@Nullable Duration leaseDuration) {
        return Timing.isLease(leaseDuration);
    }

    private final String tableName;
    private final String partitionKey;
    private final @Nullable String sortKey;
    private final LockTableOptions options;
    private final String owner = UUID.randomUUID().toString(); // random, so no two tables ever pick the same
    private final LockClock clock;
    private final Workers workers;
    private final Executor completions;
    private final @Nullable AutoCloseable ownedClock;
    private final Listeners listeners;
    private final LeaseKeeper keeper;
    private final LockMemory memory;
    private final Acquirer acquirer;
    private final ElectionContext elections;
    private final LockStore store;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Hears from the keeper each lock this table released, for a waiting acquire (the keeper comes first). */
    private final Handover handover = new Handover();
    /** The elections under way, so that {@link #close()} stops them. */
    private final Set<Leadership> leaderships = ConcurrentHashMap.newKeySet();

    private LockTable(Builder builder) {
        this.tableName = builder.tableName;
        this.partitionKey = builder.partitionKey;
        this.sortKey = builder.sortKey;
        this.options = builder.options;
        this.completions = builder.completions;
        List<LockTableListener> fixedListeners = List.copyOf(builder.listeners);
        Workers workers;
        if (builder.clock != null) {
            LockClock given = builder.clock;
            DrivenEvents events = new DrivenEvents();
            this.clock = events.around(given);
            this.ownedClock = null;
            this.listeners = new Listeners(() -> fixedListeners, events);
            workers = (task, deadline) -> {
                given.execute(task);
                return true;
            };
        } else {
            Scheduler system = new Scheduler("locktable-" + tableName, builder.schedulerThreads);
            this.clock = system;
            this.ownedClock = system;
            this.listeners = new Listeners(() -> fixedListeners, system.events());
            workers = system.workers();
        }
        LockStore store;
        if (builder.store != null) {
            store = builder.store;
        } else if (builder.requests == null) {
            store = new MemoryLockStore(
                    tableName, partitionKey, sortKey, MemoryLockStore.Items.named(tableName), options);
        } else {
            store = new DynamoDbLockStore(builder.requests, tableName, partitionKey, sortKey, options, listeners);
        }
        this.store = store;
        this.workers = workers;
        LockMemory memory = new LockMemory(tableName, listeners);
        this.memory = memory;
        this.keeper = new LeaseKeeper(store, clock, workers, listeners, owner, memory, handover::released);
        this.acquirer = new Acquirer(
                store,
                clock,
                workers,
                listeners,
                memory,
                keeper,
                handover,
                ownedClock != null,
                closed::get,
                // a method reference, so that PropagatedContext (and context-propagation) loads only when asked for
                builder.propagateContext ? PropagatedContext::capture : CallerContext.Capture.NONE);
        this.elections = new ElectionContext(tableName, acquirer, workers, completions, closed::get);
    }

    /**
     * Starts a lock table over a table given by its name and key attribute names.
     *
     * @param client the DynamoDB client; its reads must be strongly consistent (not DAX)
     * @param tableName the table
     * @param partitionKey the name of the table's partition key attribute, a string
     * @return a builder; add {@link Builder#sortKey(String)} when the table has a sort key
     * @throws NullPointerException if the client is null
     * @throws IllegalArgumentException if a name breaks the rules of {@link LockTableNames}
     */
    public static Builder builder(DynamoDbClient client, String tableName, String partitionKey) {
        return new Builder(
                DynamoDbLockStore.Requests.over(Objects.requireNonNull(client, "client")), tableName, partitionKey);
    }

    /**
     * Starts a lock table over the asynchronous client, for an application that has only that one. Same item, protocol
     * and guarantees as over the synchronous client, and the same blocking methods: each request is waited for on the
     * thread that needs the answer. An interrupted acquire cancels its request and gives back what it may have taken; a
     * release is sent even on an interrupted thread. lock-core brings no HTTP client: the client uses the application's
     * ({@code netty-nio-client} or {@code aws-crt-client}).
     *
     * @param client the asynchronous DynamoDB client; its reads must be strongly consistent (not DAX)
     * @param tableName the table
     * @param partitionKey the name of the table's partition key attribute, a string
     * @return a builder
     * @throws NullPointerException if the client is null
     * @throws IllegalArgumentException if a name breaks the rules of {@link LockTableNames}
     */
    public static Builder builder(DynamoDbAsyncClient client, String tableName, String partitionKey) {
        return new Builder(
                DynamoDbLockStore.Requests.over(Objects.requireNonNull(client, "client")), tableName, partitionKey);
    }

    /**
     * Starts a lock table whose locks live in this JVM's memory, for tests of code that takes locks: the same protocol
     * (renewals, takeover after a lease, rising fencing tokens, {@link Lease#current()}), and no request. In-memory tables
     * of one name share their locks, as processes share a DynamoDB table; the locks stay while a lock table of that name
     * is reachable (then they are forgotten, so a test suite's tables leave nothing behind), and give each test a name of
     * its own. {@link Lease#transactWrite} checks the lease and drops the other items. With a {@link
     * ManualLockClock} per simulated process ({@link Builder#clock}) time is virtual.
     *
     * <pre>{@code
     * LockTable first = LockTable.inMemory("orders-test").build();
     * LockTable second = LockTable.inMemory("orders-test").build();
     * Lease lease = first.tryAcquire("sweeper", Duration.ofSeconds(30)).orElseThrow();
     * assert second.tryAcquire("sweeper", Duration.ofSeconds(30)).isEmpty();
     * }</pre>
     *
     * @param tableName the name of the in-memory table, with the rules of {@link LockTableNames#checkTableName}
     * @return a builder with partition key {@code pk}
     * @throws IllegalArgumentException if the name breaks the rules of {@link LockTableNames}
     */
    public static Builder inMemory(String tableName) {
        return new Builder(null, null, tableName, "pk");
    }

    /**
     * Makes a lock table over a table of the enhanced client, taking its name and key names from its schema.
     *
     * <pre>{@code
     * DynamoDbTable<Order> orders = enhanced.table("Shop", TableSchema.fromBean(Order.class));
     * LockTable locks = LockTable.forTable(client, orders);
     * }</pre>
     *
     * @param client the DynamoDB client
     * @param table the table
     * @return the lock table
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a key attribute of the table is not a string
     */
    public static LockTable forTable(DynamoDbClient client, DynamoDbTable<?> table) {
        return forTable(client, table, LockTableOptions.defaults());
    }

    /**
     * {@link #forTable(DynamoDbClient, DynamoDbTable)} with options.
     *
     * @param client the DynamoDB client
     * @param table the table
     * @param options what the lock items carry beyond the lock
     * @return the lock table
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a key attribute is not a string, or the options clash with the keys
     */
    public static LockTable forTable(DynamoDbClient client, DynamoDbTable<?> table, LockTableOptions options) {
        return builderFor(table, (name, key) -> builder(client, name, key))
                .options(options)
                .build();
    }

    /**
     * {@link #forTable(DynamoDbClient, DynamoDbTable)} for the enhanced asynchronous client.
     *
     * @param client the asynchronous DynamoDB client
     * @param table the table
     * @return the lock table
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a key attribute of the table is not a string
     */
    public static LockTable forTable(DynamoDbAsyncClient client, DynamoDbAsyncTable<?> table) {
        return forTable(client, table, LockTableOptions.defaults());
    }

    /**
     * {@link #forTable(DynamoDbAsyncClient, DynamoDbAsyncTable)} with options.
     *
     * @param client the asynchronous DynamoDB client
     * @param table the table
     * @param options what the lock items carry beyond the lock
     * @return the lock table
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a key attribute is not a string, or the options clash with the keys
     */
    public static LockTable forTable(
            DynamoDbAsyncClient client, DynamoDbAsyncTable<?> table, LockTableOptions options) {
        return builderFor(table, (name, key) -> builder(client, name, key))
                .options(options)
                .build();
    }

    /** A builder for a table of the enhanced client (an optional dependency), checked to have string keys. */
    private static LockTable.Builder builderFor(
            MappedTableResource<?> table, BiFunction<String, String, LockTable.Builder> builder) {
        Objects.requireNonNull(table, "table");
        TableMetadata metadata = table.tableSchema().tableMetadata();
        String partitionKey = metadata.primaryPartitionKey();
        checkString(table.tableName(), metadata, partitionKey);
        LockTable.Builder started = builder.apply(table.tableName(), partitionKey);
        Optional<String> sortKey = metadata.primarySortKey();
        if (sortKey.isPresent()) {
            checkString(table.tableName(), metadata, sortKey.get());
            started.sortKey(sortKey.get());
        }
        return started;
    }

    private static void checkString(String tableName, TableMetadata metadata, String key) {
        Optional<ScalarAttributeType> type = metadata.scalarAttributeType(key);
        if (type.isPresent() && type.get() != ScalarAttributeType.S) {
            throw new IllegalArgumentException("key attribute '" + key + "' of table " + tableName + " is of type "
                    + type.get() + "; lock items need string keys");
        }
    }

    /**
     * Tries once to acquire a lock, without waiting: empty if another holder has it. It takes over a lock whose holder
     * stopped renewing, which this table knows only after watching it for a whole lease, so a process that lives shorter
     * than a lease should call {@link #acquire(String, Duration, Duration)} with a wait of a little more than one lease.
     * A table that has not seen the lock held writes at once (one conditional {@code UpdateItem}); one that has reads
     * it first. Not reentrant.
     *
     * @param name the name of the lock; every process that names it contends for the same item
     * @param leaseDuration how long the lease lasts without a renewal, from {@link #MIN_LEASE_DURATION} to {@link
     *     #MAX_LEASE_DURATION}; it renews itself every third of it
     * @return the lease, or empty if another holder has the lock (a lease answered only after a whole lease has ended)
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws NullPointerException if the lease duration is null
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed the request (after the
     *     client's retries), {@code ResourceNotFoundException} if the table does not exist
     * @throws IllegalStateException if this table was closed
     */
    public Optional<Lease> tryAcquire(String name, Duration leaseDuration) {
        checkArguments(name, leaseDuration);
        return acquirer.tryAcquire(name, leaseDuration);
    }

    /**
     * Acquires a lock, waiting as long as it takes: interrupt the thread to give up. While another holder has it, it
     * reads the item every third of that holder's lease (at most 10 s, plus jitter) and takes it over once the holder has
     * not renewed for a whole lease on this process's clock. A release by this same table wakes it at once.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @return the lease (one answered only after a whole lease has ended)
     * @throws InterruptedException if the thread was interrupted while it waited
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws IllegalStateException if the table is or gets closed
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed a request
     */
    public Lease acquire(String name, Duration leaseDuration) throws InterruptedException {
        checkArguments(name, leaseDuration);
        try {
            return acquirer.acquire(name, leaseDuration, Long.MAX_VALUE);
        } catch (TimeoutException e) {
            throw new IllegalStateException("an acquire without a time limit timed out", e);
        }
    }

    /**
     * Acquires a lock, waiting at most {@code maxWait}; pass a little more than one lease to take over a crashed holder's
     * lock without waiting for a live one. Each request gets at least 250 ms, so a wait of zero still takes a free lock
     * and on a slow engine the call may return up to 250 ms after {@code maxWait}.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @param maxWait how long to wait for the lock, zero or more
     * @return the lease
     * @throws InterruptedException if the thread was interrupted while it waited
     * @throws TimeoutException if the lock stayed held for the whole wait
     * @throws IllegalArgumentException if the name is null or empty, the lease is out of range or the wait negative
     * @throws IllegalStateException if the table is or gets closed
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed a request
     */
    public Lease acquire(String name, Duration leaseDuration, Duration maxWait)
            throws InterruptedException, TimeoutException {
        checkArguments(name, leaseDuration);
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
        }
        return acquirer.acquire(name, leaseDuration, Timing.saturatedNanos(maxWait));
    }

    /**
     * {@link #tryAcquire} without blocking the caller: the attempt runs on a worker of the table. The future completes on
     * the {@link Builder#completionExecutor}, never on a thread of the table (with a {@link ManualLockClock}, the
     * attempt runs where its {@link LockClock#execute} runs it). Cancelling before the attempt runs sends nothing; a lease won after a cancel is
     * released at once.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @return a future of the lease, or of empty if another holder has the lock; exceptionally with what {@link
     *     #tryAcquire} throws once started, or {@link IllegalStateException} if the table closed meanwhile
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws NullPointerException if the lease duration is null
     * @throws IllegalStateException if this table is closed
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(String name, Duration leaseDuration) {
        checkArguments(name, leaseDuration);
        return AsyncAcquire.once(acquirer, clock, workers, completions, closed::get, name, leaseDuration);
    }

    /**
     * {@link #acquire(String, Duration)} without holding a thread while it waits: cancel the future to give up.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @return a future of the lease; see {@link #acquireAsync(String, Duration, Duration)}
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws NullPointerException if the lease duration is null
     * @throws IllegalStateException if this table is closed
     */
    public CompletableFuture<Lease> acquireAsync(String name, Duration leaseDuration) {
        checkArguments(name, leaseDuration);
        return AsyncAcquire.waiting(
                acquirer, clock, workers, completions, closed::get, name, leaseDuration, Long.MAX_VALUE);
    }

    /**
     * {@link #acquire(String, Duration, Duration)} without holding a thread while it waits: each attempt is a task on
     * the table's workers and each pause one on its timer, so thousands of waiters cost no thread each. The future
     * completes on the {@link Builder#completionExecutor}, never on a thread of the table. Cancelling ends the wait; a lease
     * won meanwhile is released at once, and a write whose answer never came is given back.
     *
     * <pre>{@code
     * locks.acquireAsync("report", Duration.ofSeconds(30), Duration.ofMinutes(1))
     *         .thenAcceptAsync(lease -> {
     *             try (lease) {
     *                 buildReport(lease.fencingToken());
     *             }
     *         }, executor);
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @param maxWait how long to wait for the lock, zero or more; kept even while the table's workers are busy: the
     *     future fails at its end, no attempt starts after it, and a lease answered after it is released, never handed
     *     out. Zero makes one attempt, when a worker takes it
     * @return a future of the lease; exceptionally with {@link TimeoutException} if the lock stayed held for the whole
     *     wait, {@link IllegalStateException} if the table closed meanwhile, or what {@link #acquire} throws
     * @throws IllegalArgumentException if the name is null or empty, the lease is out of range or the wait negative
     * @throws NullPointerException if the lease duration or the wait is null
     * @throws IllegalStateException if this table is closed
     */
    public CompletableFuture<Lease> acquireAsync(String name, Duration leaseDuration, Duration maxWait) {
        checkArguments(name, leaseDuration);
        Objects.requireNonNull(maxWait, "maxWait");
        if (maxWait.isNegative()) {
            throw new IllegalArgumentException("maxWait must not be negative, was " + maxWait);
        }
        return AsyncAcquire.waiting(
                acquirer,
                clock,
                workers,
                completions,
                closed::get,
                name,
                leaseDuration,
                Timing.saturatedNanos(maxWait));
    }

    /** Where the futures of the non-blocking calls complete and {@link #runAsLeaderAsync}'s work is called. */
    Executor completions() {
        return completions;
    }

    /**
     * Starts contending for leadership of a lock and returns the running election: it acquires the lock (polling as
     * {@link #acquire(String, Duration)} does), holds it while its lease lasts, contends again when it is lost, and
     * retries transient errors after a third of the lease; any other error stops it. It runs no work: code that leads
     * asks {@link Leadership#isLeader()} or takes {@link Leadership#lease()} when it runs (a scheduled job, say).
     *
     * <pre>{@code
     * Leadership leadership = locks.lead("order-sweeper", Duration.ofSeconds(30));
     * scheduler.scheduleAtFixedRate(() -> leadership.lease().ifPresent(this::sweep), 0, 1, MINUTES);
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long a term's lease lasts without a renewal, from {@link #MIN_LEASE_DURATION} to
     *     {@link #MAX_LEASE_DURATION}; about how long the lock stays with a crashed leader
     * @return the running election
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws IllegalStateException if the table is closed
     */
    public Leadership lead(String name, Duration leaseDuration) {
        return lead(name, leaseDuration, lease -> {});
    }

    /**
     * Starts contending as {@link #lead(String, Duration)} does, and tells {@code termListener} when each term starts
     * and ends, in order, on the table's event thread.
     *
     * <pre>{@code
     * Leadership leadership = locks.lead("order-sweeper", Duration.ofSeconds(30),
     *         lease -> log.info("leading with fencing token {}", lease.fencingToken()));
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long a term's lease lasts without a renewal, as for {@link #lead(String, Duration)}
     * @param termListener hears each term's start and end
     * @return the running election
     * @throws NullPointerException if the term listener is null
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws IllegalStateException if the table is closed
     */
    public Leadership lead(String name, Duration leaseDuration, LeaderTermListener termListener) {
        checkArguments(name, leaseDuration);
        return elect(name, leaseDuration, Objects.requireNonNull(termListener, "termListener"), null);
    }

    /**
     * Starts contending as {@link #lead(String, Duration, LeaderTermListener)} does, for an election that lasts as
     * long as the application: an error that is not transient (a missing table, a foreign item at the lock's key)
     * does not stop it, it contends again {@code retryAfterError} later. The first failure of a row is logged as an
     * error with its cause, later ones at debug; {@link Leadership#failuresInRow()} and {@link
     * Leadership#lastError()} tell a status page.
     *
     * <pre>{@code
     * Leadership leadership = locks.lead("order-sweeper", lease, listener, lease); // until closed
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long a term's lease lasts without a renewal, as for {@link #lead(String, Duration)}
     * @param termListener hears each term's start and end
     * @param retryAfterError how long to wait after an error that is not transient before contending again
     * @return the running election
     * @throws NullPointerException if the term listener or the wait is null
     * @throws IllegalArgumentException if the name is null or empty, the lease is out of range, or the wait negative
     * @throws IllegalStateException if the table is closed
     */
    public Leadership lead(
            String name, Duration leaseDuration, LeaderTermListener termListener, Duration retryAfterError) {
        checkArguments(name, leaseDuration);
        Objects.requireNonNull(termListener, "termListener");
        Objects.requireNonNull(retryAfterError, "retryAfterError");
        if (retryAfterError.isNegative()) {
            throw new IllegalArgumentException("retryAfterError must not be negative, was " + retryAfterError);
        }
        return elect(name, leaseDuration, termListener, retryAfterError);
    }

    private Leadership elect(
            String name, Duration leaseDuration, LeaderTermListener listener, @Nullable Duration retryAfterError) {
        return start(
                new Leadership(
                        elections,
                        name,
                        leaseDuration,
                        listener,
                        Leadership.Terms.NONE,
                        listeners,
                        clock,
                        retryAfterError),
                null);
    }

    private Leadership start(Leadership leadership, @Nullable LeaderRun run) {
        if (run != null) {
            run.follow(leadership);
        }
        leaderships.add(leadership);
        leadership.whenStopped().whenComplete((stopped, error) -> leaderships.remove(leadership));
        if (closed.get()) { // closed meanwhile: close() may not have seen it
            leaderships.remove(leadership);
            throw new IllegalStateException("lock table " + tableName + " is closed");
        }
        leadership.start();
        return leadership;
    }

    private void elect(String name, Duration leaseDuration, LeaderRun run) {
        start(new Leadership(elections, name, leaseDuration, lease -> {}, run.terms(), listeners, clock, null), run);
    }

    /**
     * Leads on a lock: of all the processes that run this for the same lock, one at a time runs {@code work}, and
     * when its lease is lost another takes over. The election is a {@link Leadership} (see {@link #lead(String,
     * Duration)}).
     *
     * <p><b>A term.</b> Each term's work runs on a new thread named {@code locktable-leader-<name>} with the lease
     * bound as {@link Lease#current()}, while the calling thread waits. When the lease is lost (a renewal found
     * another holder, or none succeeded within the lease) the work's thread is interrupted at once; this waits for the
     * work to stop and contends again.
     *
     * <p><b>How it ends.</b> If the lease was lost, whatever the work returned or threw, this contends again. If the
     * caller's thread is interrupted, the work is interrupted, the lease released once it stopped (at most one lease
     * later), and this throws {@link InterruptedException}. If the work returned or threw on its own, the lease is
     * released and this returns or rethrows: a leader that is done hands the lock on. A transient acquire error is
     * retried after a third of the lease (the first of a row logged as a warning, the recovery as an information);
     * any other error ends it. An acquire answered only after a whole lease starts no term.
     *
     * <p><b>Fencing.</b> Work that ignores interruption runs on after the lease is lost, while another process may
     * lead: fence writes with {@link Lease#heldCheck()} or {@link Lease#fencingToken()}.
     *
     * <pre>{@code
     * locks.runAsLeader("order-sweeper", Duration.ofSeconds(30), lease -> {
     *     while (true) {
     *         lease.transactWrite(TransactWriteItem.builder().put(putOrder).build());
     *         Thread.sleep(Duration.ofMinutes(1).toMillis());
     *     }
     * });
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long a lease lasts without a renewal; about how long a crashed leader's work stays
     *     undone
     * @param work the work of the leader
     * @throws InterruptedException if the calling thread was interrupted, also when the work then threw something
     *     else
     * @throws Exception what the work threw on its own
     * @throws NullPointerException if the work is null
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     */
    public void runAsLeader(String name, Duration leaseDuration, LeaderWork work) throws Exception {
        checkArguments(name, leaseDuration);
        LeaderRun run = new LeaderRun(elections, name, leaseDuration, Objects.requireNonNull(work, "work"), null);
        elect(name, leaseDuration, run);
        run.await();
    }

    /**
     * Leads on a lock as {@link #runAsLeader} does, with work that returns a stage instead of blocking a thread: no
     * thread waits while this process does not lead.
     *
     * <p><b>A term.</b> For each term won, {@code work.apply(lease)} is called on the {@link
     * Builder#completionExecutor}, never on the table's threads, with the lease bound as {@link Lease#current()} during the call (bind
     * it again in later stages with {@link Lease#callAsCurrent}). When the lease ends the work's stage is cancelled
     * ({@code toCompletableFuture().cancel(true)}) and, once it completed, the election contends again.
     *
     * <p><b>How it ends.</b> If the lease was lost, whatever the stage completed with, this contends again. Cancelling
     * the returned future cancels the work's stage, stops the election and releases the lease. If the stage completes
     * on its own, the lease is released and then the returned future completes the same way. Errors of the election
     * are those of {@link #runAsLeader}. Fence writes as there: a stage that ignores its cancellation runs on.
     *
     * <pre>{@code
     * CompletableFuture<Void> leading = locks.runAsLeaderAsync("order-sweeper", Duration.ofSeconds(30),
     *         lease -> sweeper.sweepEveryMinute(lease)); // a stage that runs until cancelled
     * leading.cancel(true); // at shutdown: the lock goes to another process at its next poll
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long a lease lasts without a renewal; about how long a crashed leader's work stays
     *     undone
     * @param work the work of one term: given the term's lease, returns a stage that completes when the work is done
     * @return a future that completes, on the {@link Builder#completionExecutor}, as the work's stage did once the lease
     *     is released; exceptionally with {@code
     *     NullPointerException} if the work returned null, {@link IllegalStateException} if the table closed while
     *     leading, or an error of the election that is not transient; cancelling it ends the leadership
     * @throws NullPointerException if the work is null
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws IllegalStateException if this table is closed
     */
    public CompletableFuture<Void> runAsLeaderAsync(
            String name, Duration leaseDuration, Function<Lease, ? extends CompletionStage<?>> work) {
        checkArguments(name, leaseDuration);
        LeaderRun run = new LeaderRun(elections, name, leaseDuration, null, Objects.requireNonNull(work, "work"));
        CompletableFuture<Void> result = run.result();
        elect(name, leaseDuration, run);
        return result;
    }
    /**
     * Runs {@code work} once under its lock if no other process holds it (the per-run lock of a job every instance
     * schedules): it takes the lock with {@link #tryAcquire}; if busy, or if the lease ended before the acquire was
     * answered (an answer later than a whole lease), the work does not run and this returns empty. The work runs on the
     * calling thread with the lease as {@link Lease#current()}, renewed while it runs. If the lease ends while the work
     * runs (lost, run out, or the table closed), the thread is interrupted at once, from the path that ended it ({@link
     * Lease#interruptOnEnd()}), and this throws {@link LeaseLostException} whatever the work returned or threw, the
     * work's exception as its cause: what the work did after the end was done without the lock, so fence its writes.
     * The lease is released when the work ends, but not before {@code minHold} has passed since the acquire: a job
     * scheduled every period P with a {@code minHold} a little below P runs once per period in the cluster.
     *
     * <pre>{@code
     * Optional<Report> report = locks.runLocked("daily-report", Duration.ofMinutes(2), Duration.ofHours(23),
     *         () -> reports.build(Lease.current().orElseThrow().fencingToken()));
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @param minHold how long the lock stays taken at least, from the acquire; zero to release when the work ends
     * @param work the work
     * @param <T> what the work returns
     * @return what the work returned, or empty if another holder had the lock (or the work returned null)
     * @throws Exception what the work threw
     * @throws LeaseLostException if the lease ended while the work ran; the interrupt it caused is cleared
     * @throws IllegalArgumentException if the name is null or empty, the lease is out of range or {@code minHold}
     *     negative
     * @throws NullPointerException if {@code minHold} or the work is null
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     */
    public <T> Optional<T> runLocked(String name, Duration leaseDuration, Duration minHold, Callable<T> work)
            throws Exception {
        checkArguments(name, leaseDuration);
        Objects.requireNonNull(minHold, "minHold");
        Objects.requireNonNull(work, "work");
        if (minHold.isNegative()) {
            throw new IllegalArgumentException("minHold of lock '" + name + "' must not be negative, was " + minHold);
        }
        Optional<Lease> acquired = tryAcquire(name, leaseDuration);
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        Lease lease = acquired.get();
        long acquiredAt = clock.nanoTime();
        try {
            if (!lease.isHeld()) {
                return Optional.empty(); // answered after a whole lease: another process may hold it already
            }
            T result;
            try (Lease.Registration stop = lease.interruptOnEnd()) {
                result = lease.callAsCurrent(work);
            } catch (Exception | Error e) {
                LeaseLostException lost = endedWhileRunning(lease, e);
                if (lost != null) {
                    throw lost;
                }
                throw e;
            }
            LeaseLostException lost = endedWhileRunning(lease, null);
            if (lost != null) {
                throw lost;
            }
            return Optional.ofNullable(result);
        } finally {
            lease.releaseAfter(minHold.minusNanos(clock.nanoTime() - acquiredAt));
        }
    }

    /** The loss to throw for a lease that ended while runLocked's work ran (not released by the work), or null. */
    private static @Nullable LeaseLostException endedWhileRunning(Lease lease, @Nullable Throwable thrown) {
        LeaseEnd end = lease.end().orElse(lease.isHeld() ? null : LeaseEnd.EXPIRED);
        if (end == null || end == LeaseEnd.RELEASED) {
            return null;
        }
        return new LeaseLostException(
                lease.name(), lease.fencingToken(), "it ended (" + end + ") while runLocked's work ran", thrown);
    }

    /**
     * Reads a lock's item as stored, with a strongly consistent read.
     *
     * @param name the name of the lock
     * @return the item, or empty when the lock has no item
     * @throws IllegalArgumentException if the name is null or empty
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed the request
     */
    public Optional<LockRecord> read(String name) {
        LockTableNames.checkLockName(name);
        return Optional.ofNullable(acquirer.read(name, Timing.READ)).map(StoredLock::toRecord);
    }

    /**
     * Checks the table with {@code DescribeTable}: the configured key attributes, as strings, and a single writing
     * region. A global table with eventual consistency (or of version 2017) is refused; one with multi-Region
     * <em>strong</em> consistency is accepted, but has no transactions ({@link Lease#heldCheck()} and {@link
     * Lease#transactWrite} then throw {@code IllegalStateException}) and no time to live. With a time-to-live attribute
     * in the options it also logs one WARN if the table's time to live is not on it.
     *
     * @throws IllegalStateException naming the table and what does not match
     * @throws software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException if the table does not exist
     */
    public void verify() {
        keeper.multiRegionStrong(store.verifyTable());
    }

    /**
     * Creates the table unless it exists, for development and tests: on-demand, this lock table's keys as strings, and
     * the time to live on the options' attribute, if any (a failure there is a WARN). Waits until it is active. An
     * in-memory table always exists. Call {@link #verify()} after it.
     *
     * @return true if this call created the table, false if it existed or another process was creating it
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB refused a request (it needs
     *     {@code DescribeTable}, {@code CreateTable} and {@code UpdateTimeToLive})
     * @throws software.amazon.awssdk.core.exception.SdkClientException if the table did not become active in time
     */
    public boolean createTableIfMissing() {
        return store.createTableIfMissing();
    }

    /**
     * The leases of this table that have not ended.
     *
     * @return a snapshot, in no particular order
     */
    public Collection<Lease> heldLeases() {
        return keeper.held();
    }

    /** @return the table that holds the locks */
    public String tableName() {
        return tableName;
    }

    /** @return the name of the table's partition key attribute */
    public String partitionKey() {
        return partitionKey;
    }

    /** @return the name of the table's sort key attribute, or empty */
    public Optional<String> sortKey() {
        return Optional.ofNullable(sortKey);
    }

    /** @return what the lock items carry beyond the lock */
    public LockTableOptions options() {
        return options;
    }

    /**
     * The random owner id of this table; each acquisition writes it followed by a dot and its number ({@link
     * Lease#owner()}).
     *
     * @return the owner id
     */
    public String owner() {
        return owner;
    }

    /**
     * Releases every lease this table holds (they end with {@link LeaseEnd#CLOSED}), stops its renewals, waiting
     * acquires and elections. Later acquires throw {@link IllegalStateException}. Idempotent; the client stays open.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        acquirer.close(); // waiting acquires of this table wake and end
        for (Leadership leadership : leaderships) {
            leadership.stopAsync(); // elections end: waiting, in a cool-down or leading
        }
        keeper.closeAll();
        try {
            if (ownedClock != null) {
                ownedClock.close();
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not stop the scheduler of lock table " + tableName, e);
        } finally {
            for (Leadership leadership : leaderships) {
                leadership.tableClosed(); // a task of its stop that the closed workers dropped must not keep it going
            }
        }
    }

    @Override
    public String toString() {
        return "LockTable[" + tableName + ", partitionKey=" + partitionKey + ", sortKey=" + sortKey + ", owner=" + owner
                + "]";
    }

    boolean isClosed() {
        return closed.get();
    }

    /** How many fencing marks the table keeps, for tests of what a released lease leaves behind. */
    int fenceMarks() {
        return memory.size();
    }

    /** How many holders the table remembers having seen, for tests of what names tried once leave behind. */
    int sightingsKept() {
        return memory.holdersSeen();
    }

    private void checkArguments(String name, Duration leaseDuration) {
        LockTableNames.checkLockName(name);
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        if (!isLeaseDuration(leaseDuration)) {
            throw new IllegalArgumentException("leaseDuration of lock '" + name + "' must be from " + MIN_LEASE_DURATION
                    + " to " + MAX_LEASE_DURATION + ", was " + leaseDuration);
        }
        if (options.timeToLiveAttribute().isPresent() && leaseDuration.compareTo(options.timeToLiveRetention()) > 0) {
            throw new IllegalArgumentException("leaseDuration of lock '" + name + "' (" + leaseDuration
                    + ") is longer than the time-to-live retention " + options.timeToLiveRetention() + " of table "
                    + tableName + ": DynamoDB could delete the item while it is held");
        }
        if (closed.get()) {
            throw new IllegalStateException("lock table " + tableName + " is closed");
        }
    }

    /** Builds a {@link LockTable}. Not thread-safe. */
    public static final class Builder {
        /** The requests to DynamoDB, over either client; null for an in-memory table or a scripted store. */
        private final DynamoDbLockStore.@Nullable Requests requests;

        private final String tableName;
        private final String partitionKey;
        private @Nullable String sortKey;
        private LockTableOptions options = LockTableOptions.defaults();
        private @Nullable LockClock clock;
        private @Nullable LockStore store;
        private int schedulerThreads = Timing.DEFAULT_WORKERS;
        private Executor completions = JDK_ASYNC;
        private boolean propagateContext;
        private final List<LockTableListener> listeners = new ArrayList<>();

        private Builder(DynamoDbLockStore.Requests requests, String tableName, String partitionKey) {
            this(requests, null, tableName, partitionKey);
        }

        private Builder(
                DynamoDbLockStore.@Nullable Requests requests,
                @Nullable LockStore store,
                String tableName,
                String partitionKey) {
            this.requests = requests;
            this.store = store;
            this.tableName = LockTableNames.checkTableName(tableName);
            this.partitionKey = LockTableNames.checkKeyAttribute("partitionKey", partitionKey);
        }

        /**
         * Names the table's sort key attribute, a string; lock items use the value {@code LOCK}.
         *
         * @param sortKey the sort key attribute name
         * @return this builder
         * @throws IllegalArgumentException if the name breaks {@link LockTableNames#checkKeyAttribute}, equals the
         *     partition key, or is the time-to-live attribute of the options
         */
        public Builder sortKey(String sortKey) {
            LockTableNames.checkKeyAttribute("sortKey", sortKey);
            if (sortKey.equals(partitionKey)) {
                throw new IllegalArgumentException(
                        "sortKey of table " + tableName + " must differ from its partitionKey '" + partitionKey + "'");
            }
            checkTimeToLiveIsNoKey(options, partitionKey, sortKey);
            this.sortKey = sortKey;
            return this;
        }

        /**
         * Sets what the lock items carry beyond the lock.
         *
         * @param options the options
         * @return this builder
         * @throws IllegalArgumentException if the time-to-live attribute of the options is a key attribute
         */
        public Builder options(LockTableOptions options) {
            Objects.requireNonNull(options, "options");
            checkTimeToLiveIsNoKey(options, partitionKey, sortKey);
            this.options = options;
            return this;
        }

        /**
         * Adds a listener; each hears every event, on the table's event thread.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(LockTableListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * Makes the context of the thread that calls an acquire current while the listeners hear that acquire's
         * start and finish ({@link LockTableListener#onAcquireStarted(String, long)}, {@link
         * LockTableListener#onAcquireFinished(String, long, AcquireOutcome, Duration, boolean)}) on the table's event
         * thread: an observation or span a listener starts there is then a child of the caller's, not a trace of its
         * own. The context is what Micrometer's context propagation captures ({@code io.micrometer:context-propagation},
         * which must be on the class path): the current {@code Observation}, and every other thread local registered
         * with it. Default off; off, nothing is captured and context-propagation need not be present.
         *
         * <p>It applies to {@code tryAcquire}, {@code acquire}, their async forms and {@code runLocked}, captured on the
         * calling thread when the call starts. A leadership's acquires have no caller: they are heard without one.
         * When on, each such call allocates one snapshot of the caller's thread locals, and each of its two events a
         * wrapper and the scope that restores the event thread after the listeners.
         *
         * <pre>{@code
         * LockTable locks = LockTable.builder(dynamoDbClient, "Shop", "pk")
         *         .listener(acquireObservations) // starts an Observation in onAcquireStarted
         *         .propagateContextToListeners(true)
         *         .build();
         * Observation.createNotStarted("checkout", registry).observeChecked(() -> {
         *     locks.acquire("cart-42", Duration.ofSeconds(10)); // its acquire's observation is a child of "checkout"
         * });
         * }</pre>
         *
         * @param propagate whether to make the caller's context current for the listeners of its acquire
         * @return this builder
         * @throws IllegalStateException if {@code propagate} is true and context-propagation is not on the class path
         */
        public Builder propagateContextToListeners(boolean propagate) {
            if (propagate) {
                try {
                    Class.forName(
                            "io.micrometer.context.ContextSnapshotFactory", false, Builder.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException(
                            "propagateContextToListeners(true) of lock table " + tableName
                                    + " needs io.micrometer:context-propagation on the class path",
                            e);
                }
            }
            this.propagateContext = propagate;
            return this;
        }

        /**
         * How many worker threads send renewals and releases at once while they start on time (default 6), beside one
         * timer thread and one event thread; all go away when idle. A worker carries one round trip at a time: 6 workers at
         * 5 ms renew about 1,200 leases a second. When renewals queue up, the leases nearest their end go first, a renewal
         * that waited a tenth of its period is late ({@link LockTableListener#onRenewalLate}), and from half that wait the
         * bound rises, one thread per such renewal, up to 64 (the extra ones go after 5 s idle).
         *
         * @param threads 1 to 64
         * @return this builder
         */
        public Builder schedulerThreads(int threads) {
            if (threads < 1 || threads > Timing.MAX_WORKERS) {
                throw new IllegalArgumentException(
                        "schedulerThreads must be from 1 to " + Timing.MAX_WORKERS + ", was " + threads);
            }
            this.schedulerThreads = threads;
            return this;
        }

        /**
         * Replaces the monotonic clock and scheduler, for tests that drive time. The table does not close it.
         *
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(LockClock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Sets where the futures of {@link LockTable#tryAcquireAsync}, {@link LockTable#acquireAsync} and {@link
         * LockTable#runAsLeaderAsync} complete, and so where their continuations run; {@code runAsLeaderAsync} calls its
         * work there too. The default is the JDK's default asynchronous executor, the common {@code ForkJoinPool}: an
         * application that fills that pool with tasks waiting for locks starves the completions they wait for, so give
         * it an executor of its own. The table does not shut it down; a task it refuses runs on the JDK's default (with
         * a WARN).
         *
         * <p>The end signals keep their thread: {@link Lease#whenEnded()}, {@link Leadership#whenStopped()}, {@link
         * Leadership#stopAsync()} and {@link Leadership#stepDownAsync} complete on the table's event thread after the
         * listeners heard the end, or on the thread of a {@link Lease#release()} or {@link LockTable#close()} that
         * caused it.
         *
         * <pre>{@code
         * LockTable locks = LockTable.builder(dynamoDbClient, "Shop", "pk")
         *         .completionExecutor(Executors.newVirtualThreadPerTaskExecutor()) // Java 21; or a pool of your own
         *         .build();
         * }</pre>
         *
         * @param executor runs the completions; it must not run them on the calling thread, which may be the table's
         * @return this builder
         * @throws NullPointerException if the executor is null
         */
        public Builder completionExecutor(Executor executor) {
            Objects.requireNonNull(executor, "completionExecutor");
            this.completions = task -> {
                try {
                    executor.execute(task);
                } catch (RejectedExecutionException e) {
                    log.warn(
                            "The completionExecutor of lock table {} refused a completion; it runs on the JDK's"
                                    + " default asynchronous executor",
                            tableName);
                    JDK_ASYNC.execute(task);
                }
            };
            return this;
        }

        /** A builder over a scripted store in place of DynamoDB, for tests of the protocol's decisions. */
        static Builder over(LockStore store, String partitionKey) {
            return new Builder(null, Objects.requireNonNull(store, "store"), store.tableName(), partitionKey);
        }

        /**
         * Builds the lock table. It sends no request: call {@link LockTable#verify()} to check the table.
         *
         * @return the lock table
         */
        public LockTable build() {
            return new LockTable(this);
        }

        /**
         * The time-to-live attribute must not be a key: DynamoDB refuses an update that sets a key attribute, so
         * every acquire would fail. Checked by whichever of {@link #options} and {@link #sortKey} comes second.
         */
        private void checkTimeToLiveIsNoKey(LockTableOptions options, String partitionKey, @Nullable String sortKey) {
            Optional<String> ttl = options.timeToLiveAttribute();
            if (ttl.isPresent() && (ttl.get().equals(partitionKey) || ttl.get().equals(sortKey))) {
                throw new IllegalArgumentException("timeToLive attribute '" + ttl.get() + "' of table " + tableName
                        + " is one of its key attributes");
            }
        }
    }
}
