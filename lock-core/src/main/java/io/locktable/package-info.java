/**
 * Named locks and leader election on DynamoDB: start at {@link io.locktable.LockTable}.
 *
 * <p>Each call comes blocking and non-blocking, with the same protocol and guarantees:
 *
 * <pre>{@code
 * Optional<Lease> now = locks.tryAcquire("cache-refresh", Duration.ofSeconds(30));
 * CompletableFuture<Lease> later = locks.acquireAsync("report", Duration.ofSeconds(30), Duration.ofMinutes(1));
 * later.cancel(true); // gives up: no further request, and a lease won meanwhile is released
 * CompletableFuture<Void> leading = locks.runAsLeaderAsync("order-sweeper", Duration.ofSeconds(30),
 *         lease -> sweeper.start(lease)); // the stage is cancelled when the lease is lost
 * }</pre>
 *
 * <h2>The protocol, step by step</h2>
 *
 * <p>The code points at these numbers ("step 4") where it carries a step out. Every decision of steps 2 to 7 is a
 * pure function of {@code Protocol}, named by its step and tested row by row without an engine ({@code
 * ProtocolTest}); {@code Acquirer} carries out steps 2 to 4, {@code LeaseKeeper} steps 5 to 8; every request goes
 * through one seam, {@code LockStore}, whose implementation over DynamoDB, {@code DynamoDbLockStore}, names the
 * item's attributes (step 1), builds and sends the requests of steps 2 to 7 and checks the table (step 9); every ratio, bound and timeout of the protocol (the renewal period, the expiry guard,
 * polls, retries, request timeouts, the lease range) comes from {@code Timing}, with the rule it keeps.
 *
 * <p><b>Where each job lives.</b>
 *
 * <ul>
 *   <li>{@code LockTable}: the public facade, its argument checks and wiring; nothing of the protocol.
 *   <li>{@code Protocol}: every decision, pure; {@code Timing}: every ratio, bound and timeout.
 *   <li>{@code Acquirer}: steps 2 to 4, one attempt and the waiting acquire (polls, same-table handover), one step
 *       of which ({@code Acquirer.next}) both APIs take: {@code acquire} sleeps between steps, {@code AsyncAcquire}
 *       ({@code tryAcquireAsync}, {@code acquireAsync}) queues each step on the workers and each pause on the timer.
 *   <li>{@code LeaseKeeper}: steps 5, 6 and 8 for the held leases; {@code Lease} is the caller's immutable handle,
 *       over a {@code LeaseState} that the keeper and the timer alone change; {@code
 *       LockMemory}: per name, step 8's marks and the holders seen (steps 3 and 4).
 *   <li>{@code Leadership} (and {@code LeaderRun} for {@code runAsLeader} and {@code runAsLeaderAsync}): elections
 *       over steps 2 to 6.
 *   <li>{@code Scheduler}: every thread, and the timer of the held leases ({@code LeaseTimer}). {@code
 *       Listeners}: events to users, off those threads.
 *   <li>{@code LockStore}: the seam, its records and its one rule for failed requests, and {@code
 *       MemoryLockStore} for {@link
 *       io.locktable.LockTable#inMemory}, which users' tests drive in virtual time with {@link
 *       io.locktable.ManualLockClock}; {@code DynamoDbLockStore}: the items and the table over DynamoDB, through
 *       either SDK client ({@code DynamoDbLockStore.Requests}).
 * </ul>
 *
 * <ol>
 *   <li><b>The item.</b> A lock is one item: partition key {@code LOCK#<name>}, sort key {@code LOCK} if the table
 *       has one, attributes {@code _type=LOCK}, {@code owner} (one per acquisition: the table's random id, a dot and the acquisition's number, so that no
 *       two acquisitions, even of one table after the item was deleted, match each other's conditions), {@code rvn} (a new
 *       random record version at each acquire and renewal), {@code fence} (raised by one at each acquire, never
 *       lowered; an item without one starts above the highest fence this table knows for the lock), {@code leaseMs}, and optionally {@code holder} and a time-to-live attribute. An item at that key
 *       that is not such an item is never written ({@link io.locktable.LockItemConflictException}).
 *   <li><b>Acquire a lock not seen held.</b> One conditional {@code UpdateItem}: set owner, rvn and lease, {@code SET
 *       fence = if_not_exists(fence, :highestKnown) + 1}, on the condition that the item has no owner and is a lock item. A retry of the SDK whose first
 *       attempt was applied fails its condition on this very write: seen as the owner and rvn just sent, it is a
 *       success.
 *   <li><b>A refused acquire.</b> The condition failure shows the holder (the item returned with it, or one
 *       strongly consistent {@code GetItem} on engines that return none). Its rvn is remembered with the time on
 *       this process's monotonic clock <em>of the answer that showed it</em>, never earlier: a renewal that lands
 *       during a slow read must not look older than it is.
 *   <li><b>Acquire a lock seen held.</b> Read first; write only if the lock is free, or its rvn stayed the one
 *       remembered for the holder's whole {@code leaseMs} on this clock, with the condition {@code rvn = :seen}. No
 *       wall clocks are compared, ever. A waiting acquire polls every third of the holder's lease, at most every
 *       10 s, with jitter, and never waits past its {@code maxWait}, requests in flight included.
 *   <li><b>Renew</b> every third of the lease: a new rvn, on the condition {@code owner = me AND fence = mine AND rvn
 *       IN (the confirmed one, the ones sent without an answer, the new one)}, so a retry after an applied attempt
 *       succeeds. A condition failure means the lease is lost; a failure that may have been applied is retried
 *       until the lease's end, and after too many a read settles which was applied. The lease ends for its holder
 *       at the <em>send</em> time of its last successful renewal plus its duration, so the holder stops believing
 *       before any contender can take over.
 *   <li><b>Release.</b> Ends the lease locally first, then {@code REMOVE owner} on the condition {@code owner = me
 *       AND fence = mine}: a lease lost to another holder never disturbs it. Sent even from an interrupted thread;
 *       a retry after an applied attempt is still a release. The item and its fence stay.
 *   <li><b>Fencing.</b> {@link io.locktable.Lease#heldCheck()} is a {@code ConditionCheck} on owner and fence, for a
 *       {@code TransactWriteItems}; {@link io.locktable.Lease#fencingToken()} is the fence of this acquisition.
 *   <li><b>The high-water mark.</b> Per lock, the highest fence this table has seen; a token answered in a known
 *       order after the mark that is below it (or equal, for a grant) is logged as an error and reported. A mark is
 *       kept, never lowered, while the table holds a lease of the lock or has a request on it under way, and then
 *       among the 256 most recently idle names ({@code LockMemory}), so a lock per entity leaves nothing behind.
 *   <li><b>One region.</b> {@link io.locktable.LockTable#verify()} refuses wrong keys and global tables whose
 *       regions each take writes on their own, and accepts multi-Region strong consistency.
 * </ol>
 *
 * <p><b>Leadership</b> is built on these steps, not beside them: a {@link io.locktable.Leadership} attempts (steps 2
 * to 4) as tasks on the table's timer and workers until it wins, holds the term's lease (step 5) and contends again
 * when it is lost; {@link io.locktable.Leadership#stepDown} releases by step 6 and sits out a cool-down. {@link
 * io.locktable.LockTable#runAsLeader} is a {@code Leadership} whose terms each run the work on a thread of the
 * work's own, started once the last term's work stopped and interrupted by the path that ends the lease, while the
 * caller waits ({@code LeaderRun}).
 *
 * <p>Every lease decision reads the monotonic clock of one {@link io.locktable.LockClock}; callbacks of users run on
 * the table's event thread, never on the threads that renew. Told to ({@link
 * io.locktable.LockTable.Builder#propagateContextToListeners}), the table captures an acquire's caller's context on the
 * caller's thread ({@code PropagatedContext}, over Micrometer's context propagation) and makes it current on the event
 * thread around that acquire's start and finish ({@code CallerContext}).
 *
 * <p><b>Threads.</b> One {@code Scheduler} per table runs them all: one timer thread ({@code LeaseTimer}: every held
 * lease in one queue, one task on the timer), one event thread for users' callbacks, and workers that send the
 * requests, earliest deadline first: up to {@code schedulerThreads} (6) as requests queue, and, while renewals start
 * late (waited a twentieth of their period, half of what is reported as late), one more per such renewal up to 64,
 * those going away after 5 s idle. Each thread goes away when idle, and none waits inside a monitor. Nothing else of
 * the library starts a thread: elections, releases at close and give-backs are tasks on these; only {@code
 * runAsLeader}'s work gets a thread per term, as user code never runs on the timer or a worker. The non-blocking
 * calls hold no thread while they wait: their futures complete, and {@code runAsLeaderAsync} calls its work, on the
 * builder's {@code completionExecutor}, by default the JDK's default asynchronous executor (that of {@code
 * CompletableFuture.runAsync}), for the same reason. Every
 * request also carries the SDK's {@code apiCallTimeout}, whose tasks run on the SDK client's own scheduled executor
 * (5 threads, started by the first request with a timeout, shared by every user of the client): only that timeout
 * aborts the HTTP request of a hung socket read, which no interrupt ends.
 */
@NullMarked
package io.locktable;

import org.jspecify.annotations.NullMarked;
