package io.locktable.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.Lease;
import io.locktable.spring.LeaderOnly;
import io.locktable.spring.LockedRun;
import io.locktable.spring.autoconfigure.LeaderOnlyAutoConfiguration;
import io.locktable.spring.autoconfigure.LockTableAutoConfiguration;
import io.locktable.spring.autoconfigure.LockedRunAutoConfiguration;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.annotation.AliasFor;
import org.springframework.core.env.MapPropertySource;
import org.springframework.javapoet.ClassName;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The starter processed ahead of time, as for a native image: the processing of its auto-configuration succeeds,
 * and {@code @LeaderOnly} and {@code @LockedRun} methods get the hints a native image needs to read and call them.
 */
class LeaderOnlyAotTest {

    private static final Duration LEASE = Duration.ofSeconds(2);

    private final String job = "aot-job-" + UUID.randomUUID();

    private GenericApplicationContext application() {
        GenericApplicationContext context = new GenericApplicationContext();
        context.getEnvironment()
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "test",
                        Map.of(
                                "locktable.table-name",
                                "AotLocks",
                                "locktable.sort-key",
                                "sk",
                                "locktable.lease-duration",
                                LEASE.toMillis() + "ms",
                                "job.name",
                                job)));
        AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
        context.registerBean(App.class);
        return context;
    }

    @Test
    void leaderOnlyMethodsGetTheReflectionHintsANativeImageNeeds() throws ClassNotFoundException {
        InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
        DefaultGenerationContext generation =
                new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(App.class)), files);
        new ApplicationContextAotGenerator().processAheadOfTime(application(), generation);
        generation.writeGeneratedContent();

        assertThat(files.getGeneratedFiles(GeneratedFiles.Kind.SOURCE))
                .as("the starter's bean definitions as code")
                .isNotEmpty();

        RuntimeHints hints = generation.getRuntimeHints();
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Job.class, "lead"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Job.class, "composed"))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Job.class, "locked"))
                .as("a @LockedRun method")
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Job.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Nightly.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethodInvocation(Class.forName("io.locktable.spring.LockNameTemplate$Root"), "getTarget"))
                .as("#root.target of a @LockedRun name with #{...} parts")
                .accepts(hints);
    }

    /** The application: the starter's auto-configuration and a bean with {@code @LeaderOnly} methods. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({
        LockTableAutoConfiguration.class,
        LeaderOnlyAutoConfiguration.class,
        LockedRunAutoConfiguration.class
    })
    public static class App {

        /**
         * A client; processing ahead of time creates no bean, so it is never built.
         *
         * @return the client
         */
        @Bean
        public DynamoDbClient dynamoDbClient() {
            return DynamoDbClient.create();
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

        /**
         * Runs under a lock of its own.
         *
         * @return the fencing token of the run's lease, or null when skipped
         */
        @LockedRun
        public Long locked() {
            return Lease.current().orElseThrow().fencingToken();
        }

        /**
         * Runs under a lock named from its argument and the bean.
         *
         * @param region the region
         */
        @LockedRun("report-#{#root.target.getClass().simpleName}-#{#region}")
        public void report(String region) {}
    }
}
