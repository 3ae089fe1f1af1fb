package io.locktable.samples.demo;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A service of which several instances run: the leader sweeps orders, fenced by its lease ({@code @LeaderOnly}), and
 * one instance per period builds the report ({@code @LockedRun}).
 */
@SpringBootApplication
public class LeaderDemoApplication {

    /**
     * Starts an instance.
     *
     * @param args Spring Boot arguments, such as {@code --server.port=8081 --demo.instance=a}
     */
    public static void main(String[] args) {
        SpringApplication.run(LeaderDemoApplication.class, args);
    }
}
