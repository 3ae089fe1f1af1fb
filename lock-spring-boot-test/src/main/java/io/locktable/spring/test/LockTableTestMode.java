package io.locktable.spring.test;

/**
 * The marker of the test mode {@code locktable.test.lead-everything=true}: the starter honours the property only
 * when this class is on the class path, and it ships only in {@code lock-spring-boot-test}, a dependency of test
 * scope. So the mode cannot be switched on in production by a stray property: there the property is ignored with a
 * WARN, and the locks work as always.
 *
 * <pre>{@code
 * @SpringBootTest(properties = "locktable.test.lead-everything=true")
 * class ReportJobTest {
 *     @Autowired ReportJob job;
 *
 *     @Test
 *     void reports() {
 *         job.report(); // runs: no engine, no lock table, no lock taken
 *     }
 * }
 * }</pre>
 *
 * <p>In this mode every {@code @LeaderOnly} and {@code @LockedRun} call runs, on the caller's thread, and the starter
 * builds no {@code LockTable}, {@code LeaderRunner} or {@code LockedRuns}, so a test needs no engine and no {@code
 * locktable.table-name}. It still builds the {@code DynamoDbClient} (when the context has none) that the
 * application's beans inject, as in production; building it sends no request, and without {@code
 * locktable.dynamodb.region} it takes the region of {@code AWS_REGION} or the AWS profile, else {@code us-east-1}. No lock is taken, so {@code Lease.current()} is empty inside the
 * calls, no run events are published and no meters recorded: code that fences its writes with the lease needs a
 * real engine (lock-test's dynalite or moto, or a container). The declarations are checked as in production: a
 * {@code @LockedRun} method returning a primitive still fails startup.
 */
public final class LockTableTestMode {

    /** The property that switches the test mode on. */
    public static final String PROPERTY = "locktable.test.lead-everything";

    private LockTableTestMode() {}
}
