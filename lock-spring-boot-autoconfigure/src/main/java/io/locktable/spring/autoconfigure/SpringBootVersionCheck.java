package io.locktable.spring.autoconfigure;

import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;

/**
 * Stops an application on a Spring Boot the starter was not built for (such as 3.x) at once, with one message that
 * names the supported versions, before anything of the starter is loaded: Boot 4 moved the packages and modules it
 * builds on, so on another major version it would fail later with a linkage error that explains nothing. Registered
 * in {@code META-INF/spring.factories} as an {@code ApplicationListener}, which every Boot version loads the same
 * way. Does nothing with {@code locktable.enabled=false}.
 */
final class SpringBootVersionCheck implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

    /** The versions the starter supports, as the message names them. */
    static final String SUPPORTED = "Spring Boot 4.0 and 4.1";

    private static final Pattern MAJOR_MINOR = Pattern.compile("^(\\d+)\\.(\\d+)");

    private final Supplier<String> version;

    SpringBootVersionCheck() {
        this(SpringBootVersion::getVersion);
    }

    SpringBootVersionCheck(Supplier<String> version) {
        this.version = version;
    }

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        if (!event.getEnvironment().getProperty("locktable.enabled", Boolean.class, true)) {
            return;
        }
        String running = version.get();
        problem(running).ifPresent(description -> {
            throw new LockTableConfigurationException(
                    description,
                    "Run the application on Spring Boot 4.0 or 4.1, or use lock-core (a plain Java library over the AWS"
                            + " SDK's DynamoDbClient) without the starter. Set locktable.enabled=false to start"
                            + " without the starter's beans.");
        });
    }

    /**
     * What is wrong with a Spring Boot version for the starter.
     *
     * @param version the version, such as {@code 3.5.6}; null or unreadable when Boot does not tell it
     * @return the description of the problem, or empty when the version is supported or cannot be told
     */
    static Optional<String> problem(String version) {
        if (version == null) {
            return Optional.empty(); // no manifest (classes run from a directory): nothing to go by
        }
        Matcher matcher = MAJOR_MINOR.matcher(version);
        if (!matcher.find()) {
            return Optional.empty();
        }
        int major = Integer.parseInt(matcher.group(1));
        if (major == 4) {
            return Optional.empty();
        }
        return Optional.of("LockTable's Spring Boot starter supports " + SUPPORTED + ", but this application runs"
                + " Spring Boot " + version + ".");
    }
}
