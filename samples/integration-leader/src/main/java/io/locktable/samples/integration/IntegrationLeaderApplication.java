package io.locktable.samples.integration;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A service of which several instances run, with Spring Integration's leader election as its users have it: a
 * {@code LockRegistryLeaderInitiator} over the context's {@code LockRegistry} and a {@code Candidate} that works while
 * it leads ({@link LeaderConfiguration}, {@link OrderSweeper}). The one thing that is not here is a {@code
 * LockRegistry} bean: with {@code lock-spring-integration} and the starter on the class path, LockTable's registry is
 * auto-configured over the starter's {@code LockTable}.
 */
@SpringBootApplication
@EnableScheduling
public class IntegrationLeaderApplication {

    /**
     * Starts an instance.
     *
     * @param args Spring Boot arguments, such as {@code --server.port=8081 --sweeper.instance=a}
     */
    public static void main(String[] args) {
        SpringApplication.run(IntegrationLeaderApplication.class, args);
    }
}
