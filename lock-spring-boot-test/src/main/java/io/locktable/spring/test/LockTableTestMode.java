package io.locktable.spring.test;

/**
 * The marker of the test mode {@code locktable.test.in-memory=true} (or its first name, {@code
 * locktable.test.lead-everything=true}): the starter honours the property only when this class is on the class path,
 * and it ships only in {@code lock-spring-boot-test}, a dependency of test scope. So the mode cannot be switched on
 * in production by a stray property: there the property is ignored with a WARN, and the locks are in DynamoDB as
 * always.
 *
 * <pre>{@code
 * @SpringBootTest(properties = "locktable.test.in-memory=true")
 * class ReportJobTest {
 *     @Autowired ReportJob job;
 *
 *     @Test
 *     void reports() {
 *         job.report(); // runs under its lock, in memory: no engine, no mock
 *     }
 * }
 * }</pre>
 *
 * <p>In this mode the starter builds its {@code LockTable} in the JVM's memory ({@code LockTable.inMemory}), and the
 * rest as in production over it: the {@code LeaderRunner} leads every {@code @LeaderOnly} name (the only instance on
 * its table, it wins at once; the context's start waits for it), so a {@code @LeaderOnly} call runs with its lease
 * as {@code Lease.current()}; a {@code @LockedRun} call takes its lock; events, meters, the health indicator and the
 * {@code locks} endpoint work. No engine and no {@code locktable.table-name} are needed, and nothing is sent for the
 * locks: no table is created or checked. Each application context has a table of its own, named after {@code
 * locktable.table-name} (or {@code locktable}) and a number, so contexts that Spring's test context cache keeps open
 * do not contend. The starter still builds the {@code DynamoDbClient} (when the context has none) that the
 * application's beans inject, as in production; building it sends no request, and without {@code
 * locktable.dynamodb.region} it takes the region of {@code AWS_REGION} or the AWS profile, else {@code us-east-1}.
 * Writes the application sends through that client go to DynamoDB, so such a bean is tested on an engine or
 * replaced in the test; {@code Lease.transactWrite} checks the lease and keeps nothing of the other items. A fenced
 * write sent through that client with an in-memory lease's {@code heldCheck()} could never apply anywhere: it is not
 * sent, the application gets an {@code SdkClientException}, and the test fails saying so and what works instead
 * ({@code lease.transactWrite(items)}).
 */
public final class LockTableTestMode {

    /** The property that switches the test mode on. */
    public static final String PROPERTY = "locktable.test.in-memory";

    /** The first name of {@link #PROPERTY}, which means the same and is still honoured. */
    public static final String FIRST_PROPERTY = "locktable.test.lead-everything";

    private LockTableTestMode() {}
}
