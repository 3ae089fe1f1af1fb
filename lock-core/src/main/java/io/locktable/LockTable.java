package io.locktable;

import io.locktable.LockStore.MemoryLockStore;
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
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbAsyncTable;
import software.amazon.awssdk.enhanced.dynamodb.DynamoDbTable;
import software.amazon.awssdk.enhanced.dynamodb.MappedTableResource;
import software.amazon.awssdk.enhanced.dynamodb.TableMetadata;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * Named locks in one DynamoDB table, each held through a {@link Lease} with a fencing token, and leader election
 * on top of them.
 *
 * <pre>{@code
 * LockTable locks = LockTable.builder(dynamoDbClient, "Shop", "pk").sortKey("sk").build();
 *
 * Optional<Lease> maybe = locks.tryAcquire("cache-refresh", Duration.ofSeconds(30));
 * if (maybe.isEmpty()) {
 *     return; // another process holds it; try again on the next round
 * }
 * try (Lease lease = maybe.get()) {
 *     lease.transactWrite(TransactWriteItem.builder().put(putOrder).build());
 * }
 * }</pre>
 *
 * <p><b>Semantics.</b> Those of the DynamoDB Lock Client: a lease has a relative duration and a record version
 * number; its holder renews it every third of the lease; a contender takes it over only after it has seen the same
 * record version for a whole lease on its own monotonic clock. No two clocks are ever compared, so machines' clocks
 * may be set apart by any offset; what it assumes is that they run at about the same rate. A host that is
 * suspended, or a virtual machine that freezes, can still hold a lease that has ended without knowing it, which is
 * what {@link Lease#heldCheck()} and {@link Lease#fencingToken()} are for.
 *
 * <p><b>The item.</b> A lock is one item of the caller's table, so it fits a single-table design. Its partition key
 * is {@code LOCK#<name>}; its sort key, if the table has one, is {@code LOCK}; both key attributes must be strings.
 * Its attributes are {@code _type} ({@code LOCK}), {@code owner}, {@code rvn}, {@code fence} and {@code leaseMs},
 * with {@code holder} and a time-to-live attribute if the {@link LockTableOptions} ask for them. An item at that key
 * that is not a lock item makes an acquire throw {@link LockItemConflictException}; the library never changes it.
 * A release keeps the item, so the fencing token never goes back.
 *
 * <p><b>One region.</b> The table must have a single region that writes: a global table that takes writes in
 * several regions can grant a lock twice with the same token. {@link #verify()} checks it.
 *
 * <p><b>Threads.</b> Thread-safe. Hold one per table and process: it remembers which holders it has seen, which a
 * takeover depends on. Renewals run on a few daemon threads however many leases are held (more only while the
 * engine answers slower than they fall due, see {@link Builder#schedulerThreads(int)}). Requests
 * go through the given client with its retries, each bounded by a per-request timeout so they never outlast the
 * lease they serve.
 */
public final class LockTable implements AutoCloseable {

    /** The shortest lease: below a second a lease cannot outlast the round trips and retries of its renewals. */
    public static final Duration MIN_LEASE_DURATION = Timing.MIN_LEASE;

    /** The longest lease, a day. */
    public static final Duration MAX_LEASE_DURATION = Timing.MAX_LEASE;

    /**
     * Tells whether a duration is one a lease may have: from {@link #MIN_LEASE_DURATION} to {@link
     * #MAX_LEASE_DURATION}. The one place of the rule, for callers that check a configured lease before using it.
     *
     * <pre>{@code
     * if (!LockTable.isLeaseDuration(configured)) {
     *     throw new IllegalStateException("app.lease is " + configured + ", outside 1s to 1d");
     * }
     * }</pre>
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
    private final @Nullable AutoCloseable ownedClock;
    private final Listeners listeners;
    private final LeaseKeeper keeper;
    private final FenceHighWater fences;
    private final Acquirer acquirer;
    private final LockStore store;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Hears from the keeper each lock this table released, for a waiting acquire (the keeper comes first). */
    private final Acquirer.Handover handover = new Acquirer.Handover();
    /** The elections under way, so that {@link #close()} stops them. */
    private final Set<Leadership> leaderships = ConcurrentHashMap.newKeySet();

    private LockTable(Builder builder) {
        this.tableName = builder.tableName;
        this.partitionKey = builder.partitionKey;
        this.sortKey = builder.sortKey;
        this.options = builder.options;
        List<LockTableListener> fixedListeners = List.copyOf(builder.listeners);
        Workers workers;
        if (builder.clock != null) {
            LockClock given = builder.clock;
            this.clock = given;
            this.ownedClock = null;
            this.listeners = new Listeners(() -> fixedListeners, Runnable::run);
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
        FenceHighWater fences = new FenceHighWater(tableName, listeners);
        this.fences = fences;
        this.keeper = new LeaseKeeper(store, clock, workers, listeners, owner, fences, handover::released);
        this.acquirer = new Acquirer(
                store, clock, workers, listeners, fences, keeper, handover, ownedClock != null, closed::get);
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
     * Starts a lock table over the asynchronous client, for an application that has only that one (Spring Cloud AWS
     * provides one, for example). The lock table is the same: the same item, the same protocol and guarantees, the
     * same blocking methods; a table over either client contends with one over the other on the same lock, and the
     * fencing tokens of a lock rise across both.
     *
     * <pre>{@code
     * DynamoDbAsyncClient client = DynamoDbAsyncClient.builder()
     *         .httpClientBuilder(NettyNioAsyncHttpClient.builder())
     *         .build();
     * LockTable locks = LockTable.builder(client, "Shop", "pk").sortKey("sk").build();
     * }</pre>
     *
     * <p><b>Threads.</b> Today each request is sent on the client and waited for on the thread that needs the answer:
     * the caller's for an acquire or a release, a worker of the table for a renewal (and the releases of {@link
     * #close()}). So a request in flight occupies that thread until its answer comes, as with the synchronous client,
     * and {@link Builder#schedulerThreads(int)} applies alike. An acquire interrupted while it waits for an answer
     * cancels the request, and gives back the lock if the write was applied all the same; a release is sent and waited
     * for even on an interrupted thread.
     *
     * <p><b>HTTP client.</b> lock-core brings none: the client uses the one the application configured, or the
     * asynchronous HTTP client found on the class path ({@code software.amazon.awssdk:netty-nio-client}, which
     * lock-core's own tests use, or {@code aws-crt-client}).
     *
     * @param client the asynchronous DynamoDB client; its reads must be strongly consistent (not DAX)
     * @param tableName the table
     * @param partitionKey the name of the table's partition key attribute, a string
     * @return a builder; add {@link Builder#sortKey(String)} when the table has a sort key
     * @throws NullPointerException if the client is null
     * @throws IllegalArgumentException if a name breaks the rules of {@link LockTableNames}
     */
    public static Builder builder(DynamoDbAsyncClient client, String tableName, String partitionKey) {
        return new Builder(
                DynamoDbLockStore.Requests.over(Objects.requireNonNull(client, "client")), tableName, partitionKey);
    }

    /**
     * Starts a lock table whose locks live in this JVM's memory instead of DynamoDB, for tests of code that takes
     * locks: the protocol is the same (leases renew, a crashed holder is taken over after a lease, fencing tokens
     * rise, {@link Lease#current()} is bound in a leader's work), and it sends no request. Every in-memory lock table
     * of one name in the JVM shares the locks, as processes share a DynamoDB table, so two of them contend like two
     * instances of a service; the locks of a name stay until the JVM exits, so give each test a name of its own.
     * {@link Lease#transactWrite} checks the lease and accepts the other items without keeping them. With a {@link
     * ManualLockClock} per simulated process ({@link Builder#clock}), time is virtual: renewals, expiries and a
     * takeover from a process whose clock stands still happen as a test advances the clocks.
     *
     * <pre>{@code
     * LockTable first = LockTable.inMemory("orders-test").build();
     * LockTable second = LockTable.inMemory("orders-test").build();
     * Lease lease = first.tryAcquire("sweeper", Duration.ofSeconds(30)).orElseThrow();
     * assert second.tryAcquire("sweeper", Duration.ofSeconds(30)).isEmpty();
     * }</pre>
     *
     * @param tableName the name of the in-memory table, with the rules of {@link LockTableNames#checkTableName}
     * @return a builder with partition key {@code pk}; {@link Builder#sortKey}, options, listeners and a clock may be
     *     set as for DynamoDB
     * @throws IllegalArgumentException if the name breaks the rules of {@link LockTableNames}
     */
    public static Builder inMemory(String tableName) {
        return new Builder(null, null, tableName, "pk");
    }

    /**
     * Makes a lock table over a table of the enhanced client, so locks share a table with entities without
     * restating its keys. The locks do not use the table's schema beyond its name and key names.
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
     * Makes a lock table over a table of the enhanced client, with options.
     *
     * @param client the DynamoDB client
     * @param table the table
     * @param options what the lock items carry beyond the lock
     * @return the lock table
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a key attribute of the table is not a string, or the options clash with
     *     the keys
     */
    public static LockTable forTable(DynamoDbClient client, DynamoDbTable<?> table, LockTableOptions options) {
        return builderFor(table, (name, key) -> builder(client, name, key))
                .options(options)
                .build();
    }

    /**
     * Makes a lock table over a table of the enhanced asynchronous client, so locks share a table with entities
     * without restating its keys: {@link #forTable(DynamoDbClient, DynamoDbTable)} for an application that has the
     * asynchronous client only (see {@link #builder(DynamoDbAsyncClient, String, String)}).
     *
     * <pre>{@code
     * DynamoDbAsyncTable<Order> orders = enhancedAsync.table("Shop", TableSchema.fromBean(Order.class));
     * LockTable locks = LockTable.forTable(asyncClient, orders);
     * }</pre>
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
     * Makes a lock table over a table of the enhanced asynchronous client, with options.
     *
     * @param client the asynchronous DynamoDB client
     * @param table the table
     * @param options what the lock items carry beyond the lock
     * @return the lock table
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if a key attribute of the table is not a string, or the options clash with
     *     the keys
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
     * Tries once to acquire a lock, without waiting: empty if another holder has it. It takes over a lock whose
     * holder stopped renewing, which this table knows only after watching it for a whole lease.
     *
     * <p><b>Requests.</b> A table that has not seen the lock held writes at once: one conditional {@code
     * UpdateItem} that raises the fencing token, and which returns the item that failed its condition if the lock
     * is held. Once it has seen a holder, it reads the item with a strongly consistent {@code GetItem} first and
     * writes only if the lock is free or the holder is due for a takeover.
     *
     * <p><b>Short-lived processes.</b> A takeover needs a table that lives longer than a lease. A process that
     * lives shorter (a scheduled job, a function, a command-line tool) never takes over a lock whose holder
     * crashed with this; it calls {@link #acquire(String, Duration, Duration)} with a wait of a little more than
     * one lease, which waits out a crashed holder and gives up on a live one.
     *
     * <p>Not reentrant: a table that holds the lock gets empty like any other contender.
     *
     * @param name the name of the lock; every process that names it contends for the same item
     * @param leaseDuration how long the lease lasts without a renewal, from {@link #MIN_LEASE_DURATION} to {@link
     *     #MAX_LEASE_DURATION}; it renews itself every third of it
     * @return the lease, or empty if another holder has the lock. An acquire whose answer came only after a whole
     *     lease returns a lease that has ended already ({@link Lease#isHeld()} is false)
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws NullPointerException if the lease duration is null
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     * @throws software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException if the table does not exist
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed the request,
     *     after the client's retries
     * @throws IllegalStateException if this table was closed
     */
    public Optional<Lease> tryAcquire(String name, Duration leaseDuration) {
        checkArguments(name, leaseDuration);
        return acquirer.tryAcquire(name, leaseDuration);
    }

    /**
     * Acquires a lock, waiting as long as it takes: interrupt the thread to give up. It takes a lock over once its
     * holder has not renewed it for a whole lease.
     *
     * <p><b>Polling.</b> While another holder has the lock it reads the item every third of that holder's lease, or
     * every 10 seconds if that is sooner, plus up to a tenth of jitter, and takes the lock over once the holder has not renewed it
     * for a whole lease, measured on this process's monotonic clock from the first time it saw that record version.
     * The wait sends one strongly consistent {@code GetItem} per poll and no write while the holder renews.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal, from {@link #MIN_LEASE_DURATION} to {@link
     *     #MAX_LEASE_DURATION}
     * @return the lease. An acquire whose answer came only after a whole lease returns a lease that has ended
     * @throws InterruptedException if the thread was interrupted while it waited
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws LockItemConflictException if the item at the lock's key is not a lock item
     * @throws software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException if the table does not exist
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB failed a request, after
     *     the client's retries
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
     * Acquires a lock, waiting at most {@code maxWait}. A process that must not wait for a live holder passes a
     * little more than one lease: long enough to take over the lock of a holder that crashed.
     *
     * <p>Each request is given at least 250 ms, however little of the wait is left (a shorter timeout of the SDK's
     * synchronous client can leave a call blocked on its socket for the HTTP client's read timeout, 30 s by default),
     * so a wait of zero still takes a free lock, and on a slow engine the call may return up to 250 ms after {@code
     * maxWait}.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @param maxWait how long to wait for the lock, zero or more
     * @return the lease
     * @throws InterruptedException if the thread was interrupted while it waited
     * @throws TimeoutException if the lock stayed held for the whole wait
     * @throws IllegalArgumentException if the name is null or empty, the lease is out of range or the wait negative
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
        return acquirer.acquire(name, leaseDuration, saturatedNanos(maxWait));
    }

    /**
     * Tries once to acquire a lock, as {@link #tryAcquire} does, without blocking the calling thread: the attempt runs
     * on one of the table's worker threads, and the future completes with its result.
     *
     * <pre>{@code
     * locks.tryAcquireAsync("cache-refresh", Duration.ofSeconds(30))
     *         .thenAccept(maybe -> maybe.ifPresent(lease -> {
     *             try (lease) {
     *                 refreshCache(lease.fencingToken());
     *             }
     *         }));
     * }</pre>
     *
     * <p><b>Threads.</b> The future completes on the JDK's default asynchronous executor (that of {@link
     * CompletableFuture#runAsync(Runnable)}, the common {@code ForkJoinPool}), never on a thread of the table, so the
     * stages chained to it may block as after {@code supplyAsync}; pass an executor of your own to the {@code
     * ...Async} stages for long work. With a clock of the caller's own ({@link Builder#clock}) the attempt runs where
     * that clock's {@link LockClock#execute} runs it: a {@link ManualLockClock} runs it on the calling thread.
     *
     * <p><b>Cancelling.</b> {@link CompletableFuture#cancel(boolean) cancel} before the attempt runs sends nothing;
     * while its requests are under way it does not stop them, and a lease they took is released at once.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal, from {@link #MIN_LEASE_DURATION} to {@link
     *     #MAX_LEASE_DURATION}
     * @return a future of the lease, or of empty if another holder has the lock. It completes exceptionally with
     *     what {@link #tryAcquire} throws once it has started: {@link LockItemConflictException}, {@code
     *     ResourceNotFoundException}, {@code DynamoDbException}, or {@link IllegalStateException} if the table
     *     closed meanwhile
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range (at once)
     * @throws NullPointerException if the lease duration is null
     * @throws IllegalStateException if this table is closed
     */
    public CompletableFuture<Optional<Lease>> tryAcquireAsync(String name, Duration leaseDuration) {
        checkArguments(name, leaseDuration);
        return AsyncAcquire.once(acquirer, clock, workers, closed::get, name, leaseDuration);
    }

    /**
     * Acquires a lock, waiting as long as it takes, as {@link #acquire(String, Duration)} does, without holding a
     * thread while it waits: cancel the future to give up.
     *
     * <pre>{@code
     * CompletableFuture<Lease> waiting = locks.acquireAsync("report", Duration.ofSeconds(30));
     * ...
     * waiting.cancel(true); // no longer needed: nothing more is sent, and a lease won meanwhile is released
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @return a future of the lease; see {@link #acquireAsync(String, Duration, Duration)}
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range (at once)
     * @throws NullPointerException if the lease duration is null
     * @throws IllegalStateException if this table is closed
     */
    public CompletableFuture<Lease> acquireAsync(String name, Duration leaseDuration) {
        checkArguments(name, leaseDuration);
        return AsyncAcquire.waiting(acquirer, clock, workers, closed::get, name, leaseDuration, Long.MAX_VALUE);
    }

    /**
     * Acquires a lock, waiting at most {@code maxWait}, as {@link #acquire(String, Duration, Duration)} does (the same
     * requests, polls and takeover), without holding a thread while it waits: each attempt is a task on the table's
     * worker threads, each pause between polls a task on its timer, so thousands of waiting acquires cost no thread
     * each. A release of the lock by this same table ends the pause at once.
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
     * <p><b>Threads.</b> The future completes on the JDK's default asynchronous executor (that of {@link
     * CompletableFuture#runAsync(Runnable)}, the common {@code ForkJoinPool}), never on a thread of the table.
     *
     * <p><b>Cancelling.</b> {@link CompletableFuture#cancel(boolean) cancel} ends the wait: no further request is
     * sent. If an attempt's request is under way it is not cut short, and what it took is not lost: a lease it won is
     * released at once, and a write whose answer never came is given back, as for any acquire.
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal
     * @param maxWait how long to wait for the lock, zero or more
     * @return a future of the lease (one answered only after a whole lease has ended already). It completes
     *     exceptionally with {@link TimeoutException} (naming the lock, the table and the wait) if the lock stayed held
     *     for the whole wait, {@link IllegalStateException} if the table closed meanwhile, {@link
     *     LockItemConflictException} if the item at the lock's key is not a lock item, and the SDK's exceptions as
     *     {@link #acquire} throws them; with {@link java.util.concurrent.CancellationException} once cancelled
     * @throws IllegalArgumentException if the name is null or empty, the lease is out of range or the wait negative
     *     (at once)
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
                acquirer, clock, workers, closed::get, name, leaseDuration, saturatedNanos(maxWait));
    }

    /** The table's acquires, for the attempts of a {@link Leadership}. */
    Acquirer acquirer() {
        return acquirer;
    }

    /** The table's workers, for tasks that send requests. */
    Workers workers() {
        return workers;
    }

    /**
     * Starts contending for leadership of a lock, and returns a handle to it: the election acquires the lock (polling
     * as {@link #acquire(String, Duration)} does), holds it while its lease lasts, contends again when it is lost,
     * and retries transient errors after a third of the lease, as {@link #runAsLeader} does (which is built on it).
     * It has no thread of its own: its attempts are tasks on the table's timer and workers. It runs no work, so code that leads asks {@link Leadership#isLeader()} or takes {@link
     * Leadership#lease()} when it runs (a scheduled job, say). {@link Leadership#close()} steps down.
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
     * Starts contending for leadership of a lock as {@link #lead(String, Duration)} does, and tells {@code
     * termListener} when each term starts and ends, in order, on the table's event thread.
     *
     * <pre>{@code
     * Leadership leadership = locks.lead("order-sweeper", Duration.ofSeconds(30),
     *         lease -> log.info("leading with fencing token {}", lease.fencingToken()));
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long a term's lease lasts without a renewal, from {@link #MIN_LEASE_DURATION} to
     *     {@link #MAX_LEASE_DURATION}; about how long the lock stays with a crashed leader
     * @param termListener hears each term's start and end
     * @return the running election
     * @throws NullPointerException if the term listener is null
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range
     * @throws IllegalStateException if the table is closed
     */
    public Leadership lead(String name, Duration leaseDuration, LeaderTermListener termListener) {
        checkArguments(name, leaseDuration);
        Objects.requireNonNull(termListener, "termListener");
        return start(new Leadership(this, name, leaseDuration, termListener, Leadership.Terms.NONE, listeners, clock));
    }

    private Leadership start(Leadership leadership) {
        leaderships.add(leadership);
        leadership.whenStopped().whenComplete((stopped, error) -> leaderships.remove(leadership));
        if (closed.get()) { // closed meanwhile: close() may not have seen it
            leaderships.remove(leadership);
            throw new IllegalStateException("lock table " + tableName + " is closed");
        }
        leadership.start();
        return leadership;
    }

    /**
     * Leads on a lock: of all the processes that run this for the same lock, one at a time runs {@code work}, and
     * when its lease is lost another takes over.
     *
     * <p><b>A term.</b> A {@link Leadership} elects (see {@link #lead(String, Duration)}); for each term won it runs
     * the work on a new thread named {@code locktable-leader-<name>} with the lease bound as {@link Lease#current()},
     * while the calling thread waits. When the lease is lost (a renewal found another holder, or none succeeded
     * within the lease) the work's thread is interrupted at once; this waits for the work to stop and contends
     * again.
     *
     * <p><b>How it ends.</b> If the lease was lost, whatever the work returned or threw, this contends again. If the
     * caller's thread is interrupted, the work is interrupted, the lease released, and this throws {@link
     * InterruptedException}, whatever the work returned or threw. If the work returned or threw on its own, the
     * lease is released and this returns or rethrows: a leader that is done hands the lock on. A service that
     * should lead for as long as it runs calls this in a loop.
     *
     * <p><b>Errors of the election.</b> An acquire that fails with a transient error (throttling, a 5xx, I/O, a
     * timeout, credentials that could not be loaded) after the client's retries is counted, and this contends again
     * after a third of the lease. Only the first failure of a row is logged as a warning, and the first success
     * after it as an information. Any other error ends it, {@code ResourceNotFoundException} included. An acquire
     * whose answer came only after a whole lease starts no term.
     *
     * <p><b>Fencing.</b> Work that ignores interruption runs on after the lease is lost, and another process may
     * then lead at the same time. Writes that must not happen then take {@link Lease#heldCheck()}, or the {@link
     * Lease#fencingToken()} to a system that checks it.
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
     * @param leaseDuration how long a lease lasts without a renewal; also about how long the work of a leader that
     *     crashed stays undone
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
        Objects.requireNonNull(work, "work");
        LeaderRun run = new LeaderRun(this, name, leaseDuration, work);
        run.run(start(new Leadership(this, name, leaseDuration, lease -> {}, run.terms(), listeners, clock)));
    }

    /**
     * Leads on a lock as {@link #runAsLeader} does, with work that returns a stage instead of blocking a thread: of
     * all the processes that run this for the same lock, one at a time runs {@code work}, and when its lease is lost
     * another takes over. The election is a {@link Leadership} (see {@link #lead(String, Duration)}): no thread
     * waits while this process does not lead.
     *
     * <p><b>A term.</b> For each term won, {@code work.apply(lease)} is called on the JDK's default asynchronous
     * executor (that of {@link CompletableFuture#runAsync(Runnable)}), never on the table's threads, with the lease
     * bound as {@link Lease#current()} during the call (bind it again in stages that run later, with {@link
     * Lease#callAsCurrent}). When the lease ends (lost, run out, or the table closed) the work's stage is cancelled
     * ({@code toCompletableFuture().cancel(true)}, from the same executor) and, once that stage has completed, the
     * election contends again; the next term's work is called only after the last one's stage completed.
     *
     * <p><b>How it ends.</b> If the lease was lost, whatever the stage completed with, this contends again. If the
     * caller cancels the returned future, the work's stage is cancelled, the election stops and the lease is released.
     * If the stage completes on its own, normally or exceptionally, the lease is released and then the returned
     * future completes the same way: a leader that is done hands the lock on. Errors of the election are those of
     * {@link #runAsLeader}: transient ones are retried after a third of the lease, any other ends the run.
     *
     * <pre>{@code
     * CompletableFuture<Void> leading = locks.runAsLeaderAsync("order-sweeper", Duration.ofSeconds(30),
     *         lease -> sweeper.sweepEveryMinute(lease)); // a stage that runs until cancelled
     * ...
     * leading.cancel(true); // at shutdown: steps down, the lock goes to another process at its next poll
     * }</pre>
     *
     * <p><b>Fencing.</b> A stage that ignores its cancellation runs on after the lease is lost, and another process
     * may then lead at the same time: fence writes with {@link Lease#heldCheck()} or {@link Lease#fencingToken()}.
     *
     * @param name the name of the lock
     * @param leaseDuration how long a lease lasts without a renewal; also about how long the work of a leader that
     *     crashed stays undone
     * @param work the work of one term: given the term's lease, returns a stage that completes when the work is done
     * @return a future that completes when the work's stage completed on its own (as it did, once the lease is
     *     released); exceptionally with what the stage failed with (or {@code NullPointerException} if the work
     *     returned null), {@link IllegalStateException} if the table closed while leading, {@link
     *     LockItemConflictException} or another error of the election that is not transient; cancelling it ends the
     *     leadership
     * @throws NullPointerException if the work is null
     * @throws IllegalArgumentException if the name is null or empty, or the lease is out of range (at once)
     * @throws IllegalStateException if this table is closed
     */
    public CompletableFuture<Void> runAsLeaderAsync(
            String name, Duration leaseDuration, Function<Lease, ? extends CompletionStage<?>> work) {
        checkArguments(name, leaseDuration);
        Objects.requireNonNull(work, "work");
        LeaderRunAsync run = new LeaderRunAsync(this, name, work);
        Leadership leadership = new Leadership(this, name, leaseDuration, lease -> {}, run.terms(), listeners, clock);
        CompletableFuture<Void> result = run.follow(leadership);
        start(leadership);
        return result;
    }

    /**
     * Runs {@code work} once under a lock of its own, if no other process holds it: the per-run lock of a job that
     * every instance schedules and one runs at each tick (ShedLock's model, without its guessed {@code
     * lockAtMostFor}). It takes the lock with {@link #tryAcquire}; if another holder has it, the work does not run
     * and this returns empty. Otherwise the work runs on the calling thread with the lease as {@link Lease#current()}
     * (renewed while it runs, so a run longer than the lease keeps the lock), and the lease is released when the work
     * returns or throws, but not before {@code minHold} has passed since the acquire: a run that ends sooner keeps the
     * lock, renewed, until then, and the table releases it (or {@link #close()} does, if sooner), so a job scheduled
     * every period P with a {@code minHold} a little below P runs once per period in the cluster.
     *
     * <p>The work is not interrupted when the lease is lost: it runs on the caller's thread. Fence what must not be
     * written after a loss ({@link Lease#transactWrite}, {@link Lease#fencingToken()}), or look at {@code
     * Lease.current().get().isHeld()} between steps.
     *
     * <pre>{@code
     * Optional<Report> report = locks.runLocked("daily-report", Duration.ofMinutes(2), Duration.ofHours(23),
     *         () -> reports.build(Lease.current().orElseThrow().fencingToken()));
     * }</pre>
     *
     * @param name the name of the lock
     * @param leaseDuration how long the lease lasts without a renewal; about how long the lock stays taken after
     *     the process running the work crashed
     * @param minHold how long the lock stays taken at least, from the acquire; zero to release as soon as the work
     *     ends
     * @param work the work
     * @param <T> what the work returns
     * @return what the work returned, or empty if another holder had the lock (or the work returned null)
     * @throws Exception what the work threw, after the release (or with the lock kept until {@code minHold})
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
            return Optional.ofNullable(lease.callAsCurrent(work));
        } finally {
            lease.releaseAfter(minHold.minusNanos(clock.nanoTime() - acquiredAt));
        }
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
        checkName(name);
        return Optional.ofNullable(acquirer.read(name, Timing.READ)).map(StoredLock::toRecord);
    }

    /**
     * Checks the table with {@code DescribeTable}: its key attributes are the configured ones and strings, and it
     * has a single writing region. When the options have a time-to-live attribute, it also reads the table's time to
     * live ({@code DescribeTimeToLive}) and logs one WARN if it is not enabled on that attribute: released lock
     * items would then stay until deleted (this does not throw; an engine without that API is not checked). A global table with eventual consistency across regions (or of the 2017 version)
     * is refused, because each region would grant a lock on its own. A global table with multi-Region
     * <em>strong</em> consistency is accepted: its conditional writes and consistent reads hold across regions, so
     * it elects one leader across regions; it has no transactions, so {@link Lease#heldCheck()} and {@link
     * Lease#transactWrite} then throw {@code IllegalStateException} (fence with {@link Lease#fencingToken()}), and no
     * time to live, so a lock table with {@link LockTableOptions.Builder#timeToLive} is refused.
     *
     * @throws IllegalStateException naming the table and what does not match
     * @throws software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException if the table does not exist
     */
    public void verify() {
        keeper.multiRegionStrong(store.verifyTable());
    }

    /**
     * Creates the table in DynamoDB unless it exists, for development and tests (a production table belongs with the
     * rest of the infrastructure): on-demand capacity, the key attributes of this lock table as strings, and, when the
     * {@link LockTableOptions#timeToLiveAttribute() options} have a time-to-live attribute, the table's time to live
     * enabled on it (a failure to enable it is logged as a WARN; the locks work without it). It waits until the table
     * is active. An in-memory table always exists. Call {@link #verify()} after it, as for any table.
     *
     * <pre>{@code
     * try (LockTable locks = LockTable.builder(client, "Locks", "pk").build()) {
     *     locks.createTableIfMissing();
     *     locks.verify();
     * }
     * }</pre>
     *
     * @return true if this call created the table, false if it existed or another process was creating it
     * @throws software.amazon.awssdk.services.dynamodb.model.DynamoDbException if DynamoDB refused a request (the
     *     client needs {@code dynamodb:DescribeTable}, {@code CreateTable} and {@code UpdateTimeToLive})
     * @throws software.amazon.awssdk.core.exception.SdkClientException if the table did not become active within
     *     the SDK's table waiter's attempts
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

    /**
     * The table that holds the locks.
     *
     * @return the table name
     */
    public String tableName() {
        return tableName;
    }

    /**
     * The name of the table's partition key attribute.
     *
     * @return the partition key name
     */
    public String partitionKey() {
        return partitionKey;
    }

    /**
     * The name of the table's sort key attribute, if it has one.
     *
     * @return the sort key name, or empty
     */
    public Optional<String> sortKey() {
        return Optional.ofNullable(sortKey);
    }

    /**
     * What the lock items carry beyond the lock.
     *
     * @return the options
     */
    public LockTableOptions options() {
        return options;
    }

    /**
     * The owner id of this table: random and unique to this instance. Each acquisition writes it to the item
     * followed by a dot and the acquisition's number ({@link Lease#owner()}), so a stored owner that starts with
     * {@code owner() + "."} was written by this table.
     *
     * @return the owner id
     */
    public String owner() {
        return owner;
    }

    /**
     * Releases every lease this table holds (they end with {@link LeaseEnd#CLOSED}) and stops its renewals. Later
     * acquires throw {@link IllegalStateException}. Idempotent; it does not close the DynamoDB client.
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
        return fences.size();
    }

    private void checkArguments(String name, Duration leaseDuration) {
        checkName(name);
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

    private static void checkName(String name) {
        LockTableNames.checkLockName(name);
    }

    private static long saturatedNanos(Duration duration) {
        try {
            return duration.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Builds a {@link LockTable}. Not thread-safe. */
    public static final class Builder {
        /**
         * Renewals in flight at once while they start on time: 6 round trips of 5 ms renew 1,200 leases a second; with
         * the timer and the event thread, a table adds at most 8 threads. Late renewals raise it up to {@link
         * Timing#MAX_WORKERS}.
         */
        private static final int DEFAULT_WORKER_THREADS = Timing.DEFAULT_WORKERS;

        /** The requests to DynamoDB, over either client; null for an in-memory table or a scripted store. */
        private final DynamoDbLockStore.@Nullable Requests requests;

        private final String tableName;
        private final String partitionKey;
        private @Nullable String sortKey;
        private LockTableOptions options = LockTableOptions.defaults();
        private @Nullable LockClock clock;
        private @Nullable LockStore store;
        private int schedulerThreads = DEFAULT_WORKER_THREADS;
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
         * Adds a listener; several may be added and each hears every event.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(LockTableListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /**
         * How many worker threads send the renewals and releases of the table at once in normal conditions (default
         * 6), beside one timer thread that keeps the schedule and ends leases on time, and one event thread for
         * listeners. Workers start as the queued requests need them and go away when idle, and the timer and event
         * threads go away after 30 s without work, so a table holding a few leases runs two or three threads and one
         * holding none runs none. With a synchronous client a worker carries one round trip at a time: 6 workers at
         * 5 ms renew about 1,200 leases a second, so a table adds at most 8 threads of its own while renewals start
         * on time.
         *
         * <p>When the engine answers slower than that (renewals per second × round trip above this bound), renewals
         * queue up: the leases nearest their end go first, and a renewal that waited longer than a tenth of its
         * renewal period is late ({@link LockTableListener#onRenewalLate}, and a warning). From half that wait (a
         * twentieth of the period) the bound rises, one thread per renewal that waited so long, up to 64 workers in all, and the threads beyond this bound go
         * away after 5 s without work, so the table falls back once the engine is fast again. The default thus
         * keeps a thousand leases of 30 s over an engine that answers in 500 ms; a higher value here only starts the
         * extra threads before renewals are late.
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

        /** A builder over a scripted store in place of DynamoDB, for tests of the protocol's decisions. */
        static Builder over(LockStore store, String partitionKey) {
            return new Builder(null, Objects.requireNonNull(store, "store"), store.tableName(), partitionKey);
        }

        /**
         * Builds the lock table. It sends no request: call {@link LockTable#verify()} to check the table. The names
         * and options were checked as they were given.
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
