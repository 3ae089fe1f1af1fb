package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.locktable.AcquireOutcome;
import io.locktable.Leadership;
import io.locktable.Lease;
import io.locktable.LockTable;
import io.locktable.LockTableListener;
import io.locktable.spring.LockedRun;
import io.locktable.spring.LockedRuns;
import io.locktable.spring.actuate.AcquireObservationConvention;
import io.locktable.spring.actuate.DefaultAcquireObservationConvention;
import io.locktable.spring.actuate.DefaultLockedRunObservationConvention;
import io.locktable.spring.actuate.LockObservationContext;
import io.locktable.spring.actuate.LockObservationContext.Kind;
import io.locktable.spring.actuate.LockObservations;
import io.locktable.spring.actuate.LockedRunObservationConvention;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.ObservationView;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Acquires and {@code @LockedRun} calls as Micrometer observations, on lock tables in memory (no engine): through a
 * {@link TestObservationRegistry}, through Micrometer's default handler into timers, and as Prometheus renders them.
 */
class LockObservationsTest {

    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final Duration LEASE = Duration.ofSeconds(10);

    private final String tableName = "observed-" + UUID.randomUUID();
    /** The contexts of the observations stopped, in the order they stopped. */
    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    /** Without the application's bean, which needs the Observation API. */
    private final ApplicationContextRunner bare = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    LockTableAutoConfiguration.class,
                    LeaderOnlyAutoConfiguration.class,
                    LockedRunAutoConfiguration.class,
                    LockTableObservationAutoConfiguration.class))
            .withUserConfiguration(InMemoryTable.class)
            .withPropertyValues("locktable.lease-duration=2s", "test.table=" + tableName);

    private final ApplicationContextRunner runner = bare.withBean(Reports.class);

    /** Another instance: a lock table in memory that shares this test's locks. */
    private LockTable other() {
        return LockTable.inMemory(tableName).build();
    }

    /** A registry for the assertions of micrometer-observation-test, which also notes the stops in order. */
    private TestObservationRegistry recording() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        return registry;
    }

    @Test
    void anAcquireIsObservedFromItsStartToItsOutcomeTaggedOtherForANameOfTheApplication() {
        TestObservationRegistry registry = recording();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockObservations.class);
            LockTable locks = context.getBean(LockTable.class);
            String name = "order-" + UUID.randomUUID();
            Lease lease = locks.tryAcquire(name, LEASE).orElseThrow();
            assertThat(locks.tryAcquire(name, LEASE)).isEmpty();
            lease.release();

            await().atMost(WAIT)
                    .untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                            .hasNumberOfObservationsWithNameEqualTo(DefaultAcquireObservationConvention.NAME, 2)
                            .forAllObservationsWithNameEqualTo(
                                    DefaultAcquireObservationConvention.NAME,
                                    observation -> observation
                                            .hasLowCardinalityKeyValue("lock", "other")
                                            .hasHighCardinalityKeyValue("lock.name", name)
                                            .hasContextualNameEqualTo("acquire other")));
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(stopped)
                            .extracting(stop ->
                                    stop.getLowCardinalityKeyValue("outcome").getValue())
                            .containsExactly("acquired", "busy"));
        });
    }

    @Test
    void aLockedRunIsObservedAroundTheCallCurrentWhileTheBodyRunsTaggedWithItsTemplate() {
        TestObservationRegistry registry = recording();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(LockObservations.class);
            Reports reports = context.getBean(Reports.class);

            assertThat(reports.byRegion("eu")).isPresent();
            assertThat(reports.currentInBody())
                    .as("the run's observation is the current one while the body runs")
                    .isInstanceOfSatisfying(
                            LockObservationContext.class,
                            run -> assertThat(run.kind()).isEqualTo(Kind.LOCKED_RUN));
            try (LockTable other = other()) {
                Lease held = other.tryAcquire("report-us", LEASE).orElseThrow();
                assertThat(reports.byRegion("us"))
                        .as("held by another instance: skipped")
                        .isEmpty();
                held.release();
            }
            assertThatThrownBy(() -> reports.failing("eu")).hasMessage("no report today");

            TestObservationRegistryAssert.assertThat(registry)
                    .hasNumberOfObservationsWithNameEqualTo(DefaultLockedRunObservationConvention.NAME, 3);
            assertThat(stopped)
                    .filteredOn(stop -> isKind(stop, Kind.LOCKED_RUN))
                    .extracting(stop -> stop.getLowCardinalityKeyValues().stream()
                                    .map(keyValue -> keyValue.getKey() + "=" + keyValue.getValue())
                                    .toList()
                            + " "
                            + stop.getHighCardinalityKeyValue("lock.name").getValue()
                            + " " + stop.getContextualName())
                    .containsExactly(
                            "[lock=report-#{#region}, outcome=completed] report-eu locked run report-#{#region}",
                            "[lock=report-#{#region}, outcome=skipped] report-us locked run report-#{#region}",
                            "[lock=failing-#{#region}, outcome=failed] failing-eu locked run failing-#{#region}");
            assertThat(stopped)
                    .filteredOn(stop -> isKind(stop, Kind.LOCKED_RUN)
                            && ((LockObservationContext) stop).name().equals("failing-eu"))
                    .singleElement()
                    .satisfies(stop -> assertThat(stop.getError()).hasMessage("no report today"));
            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(stopped)
                            .filteredOn(stop -> isKind(stop, Kind.ACQUIRE))
                            .extracting(stop -> stop.getLowCardinalityKeyValue("lock")
                                            .getValue() + " "
                                    + stop.getLowCardinalityKeyValue("outcome").getValue())
                            .as("the acquires of the runs, tagged with the template, not the evaluated name")
                            .containsExactly(
                                    "report-#{#region} acquired",
                                    "report-#{#region} busy",
                                    "failing-#{#region} acquired"));
        });
    }

    @Test
    void aRunWhoseWorkEndsLaterIsObservedUntilItsFutureCompletesAndLeavesNoScopeOnTheCaller() {
        TestObservationRegistry registry = recording();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            Reports reports = context.getBean(Reports.class);
            CompletableFuture<String> work = new CompletableFuture<>();

            CompletableFuture<String> call = reports.later("eu", work);
            assertThat(registry.getCurrentObservation())
                    .as("the caller's thread keeps no scope of a run that ends later")
                    .isNull();
            assertThat(stopped).noneMatch(stop -> isKind(stop, Kind.LOCKED_RUN));

            work.complete("done");
            assertThat(call).succeedsWithin(WAIT).isEqualTo("done");
            assertThat(stopped)
                    .filteredOn(stop -> isKind(stop, Kind.LOCKED_RUN))
                    .singleElement()
                    .satisfies(stop -> {
                        assertThat(stop.getLowCardinalityKeyValue("lock").getValue())
                                .isEqualTo("later-#{#region}");
                        assertThat(stop.getLowCardinalityKeyValue("outcome").getValue())
                                .isEqualTo("completed");
                    });
        });
    }

    /**
     * Inside an open observation, an acquire's observation is its child, blocking or not; a {@code @LockedRun} call's
     * acquire is a child of the run's observation when the call blocks (current then), of the caller's when its work
     * ends later (the run has no scope); a leadership's acquire, and one outside any observation, are roots.
     */
    @Test
    void anAcquireInsideAnObservationIsItsChildBlockingAsyncOrInALockedRunAndALeadershipsIsARoot() {
        TestObservationRegistry registry = recording();
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasBean("lockTableCallerContext");
            LockTable locks = context.getBean(LockTable.class);
            Reports reports = context.getBean(Reports.class);
            String prefix = UUID.randomUUID() + "-";
            CompletableFuture<String> work = new CompletableFuture<>();
            Observation request = Observation.start("request", registry);
            CompletableFuture<Lease> async;
            CompletableFuture<Optional<Lease>> tryAsync;
            CompletableFuture<String> later;
            Leadership leadership;
            try (Observation.Scope scope = request.openScope()) {
                locks.tryAcquire(prefix + "try", LEASE).orElseThrow().release();
                locks.acquire(prefix + "blocking", LEASE, WAIT).release();
                async = locks.acquireAsync(prefix + "async", LEASE, WAIT);
                tryAsync = locks.tryAcquireAsync(prefix + "tryAsync", LEASE);
                assertThat(reports.byRegion(prefix + "eu")).isPresent();
                later = reports.later(prefix + "us", work);
                leadership = locks.lead(prefix + "leader", LEASE);
            }
            locks.tryAcquire(prefix + "outside", LEASE).orElseThrow().release();
            async.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).release();
            tryAsync.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).orElseThrow().release();
            work.complete("done");
            assertThat(later).succeedsWithin(WAIT);
            await().atMost(WAIT).until(leadership::isLeader);
            leadership.stopAsync().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            request.stop();

            await().atMost(WAIT)
                    .untilAsserted(() -> assertThat(stopped)
                            .filteredOn(stop -> isKind(stop, Kind.ACQUIRE))
                            .hasSize(8));
            Map<String, Object> parents = new ConcurrentHashMap<>(); // by lock name: the parent's context, or "root"
            for (Observation.Context stop : stopped) {
                if (isKind(stop, Kind.ACQUIRE)) {
                    ObservationView parent = stop.getParentObservation();
                    parents.put(
                            ((LockObservationContext) stop).name(), parent == null ? "root" : parent.getContextView());
                }
            }
            String run = "report-" + prefix + "eu";
            Observation.Context runContext = stopped.stream()
                    .filter(stop -> isKind(stop, Kind.LOCKED_RUN)
                            && ((LockObservationContext) stop).name().equals(run))
                    .findFirst()
                    .orElseThrow();
            assertThat(parents)
                    .as("the parent of each acquire's observation")
                    .hasSize(8)
                    .containsEntry(prefix + "try", request.getContext())
                    .containsEntry(prefix + "blocking", request.getContext())
                    .containsEntry(prefix + "async", request.getContext())
                    .containsEntry(prefix + "tryAsync", request.getContext())
                    .containsEntry(run, runContext)
                    .containsEntry("later-" + prefix + "us", request.getContext())
                    .containsEntry(prefix + "leader", "root")
                    .containsEntry(prefix + "outside", "root");
        });
    }

    @Test
    void withoutContextPropagationTheTableIsNotToldToPropagateAndAcquiresAreStillObserved() {
        TestObservationRegistry registry = recording();
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.context"))
                .withBean(ObservationRegistry.class, () -> registry)
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean("lockTableCallerContext");
                    context.getBean(LockTable.class)
                            .tryAcquire("plain-" + UUID.randomUUID(), LEASE)
                            .orElseThrow()
                            .release();
                    await().atMost(WAIT)
                            .untilAsserted(() -> assertThat(stopped)
                                    .filteredOn(stop -> isKind(stop, Kind.ACQUIRE))
                                    .singleElement()
                                    .satisfies(stop -> assertThat(stop.getParentObservation())
                                            .isNull()));
                });
    }

    @Test
    void concurrentAcquiresOfOneNameEachStopTheirOwnObservation() throws Exception {
        MeterRegistry meters = new SimpleMeterRegistry();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            LockTable locks = context.getBean(LockTable.class);
            String name = "contended-" + UUID.randomUUID();
            try (LockTable other = other()) {
                Lease held = other.tryAcquire(name, LEASE).orElseThrow();
                CompletableFuture<Lease> patient = CompletableFuture.supplyAsync(() -> acquire(locks, name, WAIT));
                Thread.sleep(1_000);
                assertThatThrownBy(() -> locks.acquire(name, LEASE, Duration.ofMillis(300)))
                        .as("started after the patient one, ended before it")
                        .isInstanceOf(TimeoutException.class);
                Thread.sleep(700);
                held.release();
                patient.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).release();
            }
            await().atMost(WAIT)
                    .until(() -> meters.find(DefaultAcquireObservationConvention.NAME)
                                    .tag("outcome", "acquired")
                                    .timer()
                            != null);
            Timer timedOut = meters.get(DefaultAcquireObservationConvention.NAME)
                    .tag("outcome", "timeout")
                    .timer();
            Timer acquired = meters.get(DefaultAcquireObservationConvention.NAME)
                    .tag("outcome", "acquired")
                    .timer();
            assertThat(timedOut.max(TimeUnit.MILLISECONDS))
                    .as("its own wait of 300 ms, not the patient one's")
                    .isBetween(250.0, 900.0);
            assertThat(acquired.max(TimeUnit.MILLISECONDS))
                    .as("the patient wait, from its own start")
                    .isGreaterThanOrEqualTo(1_900.0);
        });
    }

    /**
     * Two waiting acquires of one name start at once (within the event thread's delay of each other, where their
     * times could not tell them apart) and finish in the other order: each finish stops its own start's observation.
     */
    @Test
    void asyncAcquiresOfOneNameStartedTogetherEachGetTheirOwnOutcomeAndDuration() {
        List<Observation.Context> started = new CopyOnWriteArrayList<>();
        Map<Observation.Context, Long> startedAt = new ConcurrentHashMap<>();
        Map<Observation.Context, Long> tookNanos = new ConcurrentHashMap<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStart(Observation.Context context) {
                started.add(context);
                startedAt.put(context, System.nanoTime());
            }

            @Override
            public void onStop(Observation.Context context) {
                tookNanos.put(context, System.nanoTime() - startedAt.get(context));
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return isKind(context, Kind.ACQUIRE);
            }
        });
        runner.withBean(ObservationRegistry.class, () -> registry).run(context -> {
            LockTable locks = context.getBean(LockTable.class);
            String name = "together-" + UUID.randomUUID();
            try (LockTable other = other()) {
                Lease held = other.tryAcquire(name, LEASE).orElseThrow();
                CompletableFuture<Lease> patient = locks.acquireAsync(name, LEASE, WAIT);
                CompletableFuture<Lease> hasty = locks.acquireAsync(name, LEASE, Duration.ofMillis(300));
                assertThat(hasty)
                        .failsWithin(WAIT)
                        .withThrowableOfType(ExecutionException.class)
                        .withCauseInstanceOf(TimeoutException.class);
                Thread.sleep(700);
                held.release();
                patient.get(WAIT.toMillis(), TimeUnit.MILLISECONDS).release();
            }
            await().atMost(WAIT).until(() -> tookNanos.size() == 2);
            assertThat(started).hasSize(2);
            Observation.Context patientContext = started.get(0);
            Observation.Context hastyContext = started.get(1);
            assertThat(patientContext.getLowCardinalityKeyValue("outcome").getValue())
                    .isEqualTo("acquired");
            assertThat(hastyContext.getLowCardinalityKeyValue("outcome").getValue())
                    .isEqualTo("timeout");
            assertThat(TimeUnit.NANOSECONDS.toMillis(tookNanos.get(hastyContext)))
                    .as("its own wait of 300 ms")
                    .isBetween(200L, 900L);
            assertThat(TimeUnit.NANOSECONDS.toMillis(tookNanos.get(patientContext)))
                    .as("the patient wait, until the release after 1 s")
                    .isGreaterThanOrEqualTo(900L);
        });
    }

    /** A finish is matched by its id alone: its elapsed time, here pointing at the other start, plays no part. */
    @Test
    void aFinishStopsTheObservationOfTheStartWithItsId() {
        List<Observation.Context> started = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStart(Observation.Context context) {
                started.add(context);
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        LockObservations observations = new LockObservations(registry, null, null, null, () -> null, () -> null);
        observations.onAcquireStarted("job", 41);
        observations.onAcquireStarted("job", 42);

        observations.onAcquireFinished("job", 41, AcquireOutcome.ACQUIRED, Duration.ZERO, false);
        observations.onAcquireFinished("job", 42, AcquireOutcome.BUSY, Duration.ofHours(1), false);
        observations.onAcquireFinished("job", 43, AcquireOutcome.ERROR, Duration.ZERO, false); // not heard: ignored

        assertThat(stopped).containsExactlyElementsOf(started);
        assertThat(started)
                .extracting(
                        context -> context.getLowCardinalityKeyValue("outcome").getValue())
                .containsExactly("acquired", "busy");
    }

    /** No outcome before it is known (a long task timer reads the keys at the start); one open at the stop is cancelled. */
    @Test
    void anAcquireCarriesNoOutcomeWhileItRunsAndOneOpenAtTheStopEndsCancelled() {
        List<String> atStart = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onStart(Observation.Context context) {
                atStart.add(context.getLowCardinalityKeyValues().stream()
                        .map(keyValue -> keyValue.getKey() + "=" + keyValue.getValue())
                        .toList()
                        .toString());
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        LockObservations observations = new LockObservations(registry, null, null, null, () -> null, () -> null);
        observations.onAcquireStarted("job", 51);

        observations.destroy();

        assertThat(atStart).containsExactly("[lock=other]");
        assertThat(stopped)
                .singleElement()
                .satisfies(stop -> assertThat(
                                stop.getLowCardinalityKeyValue("outcome").getValue())
                        .isEqualTo("cancelled"));
    }

    /**
     * With the {@code locktable.*} meters, the observations make no meters of their own through a meter handler: one
     * family per event in Prometheus.
     */
    @Test
    void prometheusRendersEachEventOnceThoughTheObservationsGoToAMeterHandler() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(prometheus));
        runner.withConfiguration(AutoConfigurations.of(
                        LockTableMetricsAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class))
                .withBean(PrometheusMeterRegistry.class, () -> prometheus)
                .withBean(ObservationRegistry.class, () -> registry)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(Reports.class).byRegion("eu")).isPresent();
                    await().atMost(WAIT)
                            .untilAsserted(() -> assertThat(prometheus.scrape())
                                    .contains("locktable_acquire_seconds_count{lock=\"report-#{#region}\","
                                            + "outcome=\"acquired\"} 1")
                                    .contains("locktable_run_seconds_count{lock=\"report-#{#region}\","
                                            + "outcome=\"completed\"} 1"));
                    assertThat(prometheus.scrape())
                            .doesNotContain("locktable_acquisition")
                            .doesNotContain("locktable_locked_run");
                });
    }

    @Test
    void conventionsOfTheApplicationReplaceTheDefaultOnes() {
        TestObservationRegistry registry = TestObservationRegistry.create();
        AcquireObservationConvention acquires = new DefaultAcquireObservationConvention() {
            @Override
            public String getName() {
                return "orders.lock.acquire";
            }

            @Override
            public KeyValues getLowCardinalityKeyValues(LockObservationContext context) {
                return super.getLowCardinalityKeyValues(context).and("team", "orders");
            }
        };
        LockedRunObservationConvention runs = new DefaultLockedRunObservationConvention() {
            @Override
            public String getName() {
                return "orders.job";
            }
        };
        runner.withBean(ObservationRegistry.class, () -> registry)
                .withBean(AcquireObservationConvention.class, () -> acquires)
                .withBean(LockedRunObservationConvention.class, () -> runs)
                .run(context -> {
                    assertThat(context.getBean(Reports.class).byRegion("eu")).isPresent();
                    TestObservationRegistryAssert.assertThat(registry)
                            .hasObservationWithNameEqualTo("orders.job")
                            .that()
                            .hasLowCardinalityKeyValue("lock", "report-#{#region}");
                    await().atMost(WAIT)
                            .untilAsserted(() -> TestObservationRegistryAssert.assertThat(registry)
                                    .hasObservationWithNameEqualTo("orders.lock.acquire")
                                    .that()
                                    .hasBeenStopped()
                                    .hasLowCardinalityKeyValue("team", "orders"));
                });
    }

    @Test
    void backsOffWithoutARegistryOrTheObservationApiAndForAnObserverOfTheApplication() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObservations.class));
        bare.withClassLoader(new FilteredClassLoader("io.micrometer.observation"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockObservations.class));
        TestObservationRegistry mineRecords = TestObservationRegistry.create();
        LockObservations mine = new LockObservations(mineRecords, null, null, null, () -> null, () -> null);
        runner.withBean(ObservationRegistry.class, TestObservationRegistry::create)
                .withBean("mine", LockObservations.class, () -> mine)
                .run(context -> {
                    assertThat(context).getBean(LockObservations.class).isSameAs(mine);
                    assertThat(context).hasSingleBean(LockedRuns.class);
                    assertThat(context.getBean(Reports.class).byRegion("eu")).isPresent();
                    TestObservationRegistryAssert.assertThat(mineRecords)
                            .as("the application's observer observes the runs")
                            .hasObservationWithNameEqualTo(DefaultLockedRunObservationConvention.NAME)
                            .that()
                            .hasBeenStopped();
                });
    }

    private static boolean isKind(Observation.Context context, Kind kind) {
        return context instanceof LockObservationContext lock && lock.kind() == kind;
    }

    private static Lease acquire(LockTable locks, String name, Duration wait) {
        try {
            return locks.acquire(name, LEASE, wait);
        } catch (InterruptedException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A lock table in memory that the context's listener beans hear and its customizers adjust, as the auto-configured
     * one does.
     */
    @Configuration(proxyBeanMethods = false)
    static class InMemoryTable {
        @Bean
        LockTable lockTable(
                @Value("${test.table}") String tableName,
                ObjectProvider<LockTableListener> listeners,
                ObjectProvider<LockTableBuilderCustomizer> customizers) {
            LockTable.Builder builder = LockTable.inMemory(tableName)
                    .listener(LockTableListener.forwardingTo(
                            () -> listeners.orderedStream().toList()));
            customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
            return builder.build();
        }
    }

    /** {@code @LockedRun} methods whose names are templates over an argument. */
    public static class Reports {
        private final ObservationRegistry registry;
        private final AtomicReference<Observation.@Nullable Context> current = new AtomicReference<>();

        public Reports(ObjectProvider<ObservationRegistry> registry) {
            this.registry = registry.getIfAvailable(() -> ObservationRegistry.NOOP);
        }

        /** The context of the observation that was current while the last body ran. */
        public Observation.@Nullable Context currentInBody() {
            return current.get();
        }

        @LockedRun(name = "report-#{#region}")
        public Optional<Lease> byRegion(String region) {
            Observation observation = registry.getCurrentObservation();
            current.set(observation == null ? null : observation.getContext());
            return Lease.current();
        }

        @LockedRun(name = "failing-#{#region}")
        public void failing(String region) {
            throw new IllegalStateException("no report today");
        }

        @LockedRun(name = "later-#{#region}")
        public CompletableFuture<String> later(String region, CompletableFuture<String> work) {
            return work;
        }
    }
}
