package io.locktable.spring.autoconfigure;

import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;

/**
 * Stops an application on a Spring Boot other than 4.x at once, with one message, instead of a linkage error later
 * (Boot 4 moved the packages the starter builds on). An {@code ApplicationListener} of {@code spring.factories},
 * which every Boot version loads; does nothing with {@code locktable.enabled=false}.
 */
final class SpringBootVersionCheck implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

    private final Supplier<@Nullable String> version;

    SpringBootVersionCheck() {
        this(SpringBootVersion::getVersion);
    }

    SpringBootVersionCheck(Supplier<@Nullable String> version) {
        this.version = version;
    }

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        if (event.getEnvironment().getProperty("locktable.enabled", Boolean.class, true)) {
            problem(version.get()).ifPresent(description -> {
                throw new LockTableConfigurationException(
                        description,
                        "Run the application on Spring Boot 4.0 or 4.1, or use lock-core (a plain Java library over"
                                + " the AWS SDK's DynamoDbClient) without the starter. Set locktable.enabled=false to"
                                + " start without the starter's beans.");
            });
        }
    }

    /** What is wrong with a version, such as {@code 3.5.6}; empty when supported or unreadable (no manifest). */
    static Optional<String> problem(@Nullable String version) {
        if (version == null || !version.matches("\\d+\\.\\d+.*") || version.startsWith("4.")) {
            return Optional.empty();
        }
        return Optional.of("LockTable's Spring Boot starter supports Spring Boot 4.0 and 4.1, but this application"
                + " runs Spring Boot " + version + ".");
    }
}
