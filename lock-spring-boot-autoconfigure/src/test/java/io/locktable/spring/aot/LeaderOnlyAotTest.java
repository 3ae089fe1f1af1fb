package io.locktable.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.locktable.Lease;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LeaderRunner;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.test.DynamoDbEngineTest;
import io.locktable.test.DynamoDbEngines;
import io.locktable.test.TestTable;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.annotation.AliasFor;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The starter processed ahead of time, as for a native image: the hints {@code @LeaderOnly} methods need, and an
 * application context started from the generated code, where {@code @LeaderOnly} works as it does without AOT.
 */
@DynamoDbEngineTest
@CompileWithForkedClassLoader
class LeaderOnlyAotTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final TestTable table;
    private final String job = "aot-job-" + UUID.randomUUID();

    LeaderOnlyAotTest(TestTable table) {
        this.table = table;
    }

    private GenericApplicationContext application() {
        GenericApplicationContext context = new GenericApplicationContext();
        context.getEnvironment()
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "test",
                        Map.of(
                                "locktable.table-name",
                                table.name(),
                                "locktable.sort-key",
                                table.sortKey().orElse(""),
                                "locktable.lease-duration",
                                LEASE.toMillis() + "ms",
                                "job.name",
                                job)));
        AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
        context.registerBean(App.class);
        return context;
    }

    @Test
    void leaderOnlyMethodsGetTheReflectionHintsANativeImageNeeds() {
        TestGenerationContext generation = new TestGenerationContext();
        new ApplicationContextAotGenerator().processAheadOfTime(application(), generation);

        RuntimeHints hints = generation.getRuntimeHints();
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Job.class, "lead"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Job.class, "composed"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Job.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Nightly.class)).accepts(hints);
    }

    @Test
    void anApplicationStartedFromTheGeneratedCodeLeadsAndChecksItsCalls() {
        TestGenerationContext generation = new TestGenerationContext(App.class);
        ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(application(), generation);
        generation.writeGeneratedContent();

        TestCompiler.forSystem().with(generation).compile(compiled -> {
            GenericApplicationContext context = new GenericApplicationContext();
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(
                            application().getEnvironment().getPropertySources().get("test"));
            @SuppressWarnings("unchecked")
            ApplicationContextInitializer<GenericApplicationContext> generated =
                    compiled.getInstance(ApplicationContextInitializer.class, initializer.toString());
            generated.initialize(context);
            context.refresh();
            try {
                LeaderRunner leaders = context.getBean(LeaderRunner.class);
                assertThat(leaders.names()).containsExactly(job);
                await().atMost(LEASE.multipliedBy(3)).until(() -> leaders.isLeader(job));
                Job bean = context.getBean(Job.class);
                assertThat(bean.lead())
                        .isEqualTo(leaders.lease(job).orElseThrow().fencingToken());
                leaders.yield(job);
                assertThat(bean.lead()).as("skipped").isNull();
                assertThat(bean.composed()).isNull();
            } finally {
                context.close();
            }
        });
    }

    /** The application: the starter's auto-configuration and a bean with {@code @LeaderOnly} methods. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({LockTableAutoConfiguration.class, LeaderOnlyAutoConfiguration.class})
    public static class App {

        /**
         * A client of the test's engine.
         *
         * @return the client
         */
        @Bean
        public DynamoDbClient dynamoDbClient() {
            return DynamoDbEngines.current().newClient(o -> {});
        }

        /**
         * The job.
         *
         * @return the job
         */
        @Bean
        public Job job() {
            return new Job();
        }
    }

    /** A composed annotation. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    @LeaderOnly
    public @interface Nightly {
        /**
         * The name.
         *
         * @return the name
         */
        @AliasFor(annotation = LeaderOnly.class, attribute = "name")
        String value();
    }

    /** Work that only the leader does. */
    public static class Job {

        /**
         * Runs while leading.
         *
         * @return the fencing token of the lease, or null when skipped
         */
        @LeaderOnly("${job.name}")
        public Long lead() {
            return Lease.current().orElseThrow().fencingToken();
        }

        /**
         * Runs while leading, named through a composed annotation.
         *
         * @return the fencing token of the lease, or null when skipped
         */
        @Nightly("${job.name}")
        public Long composed() {
            return Lease.current().orElseThrow().fencingToken();
        }
    }
}
