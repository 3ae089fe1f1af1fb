package io.locktable.samples.demo;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/** A service of which several instances run; one of them sweeps orders, fenced by its lease. */
@SpringBootApplication
@EnableScheduling
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
