package io.locktable.samples.reactive;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;
import reactor.core.publisher.Hooks;

/** A service with two reactive jobs: {@link ReportJob} (a {@code Mono}) and {@link OrderSweep} (Kotlin, suspend). */
@SpringBootApplication
@EnableScheduling
public class ReactiveJobsApplication {

    static {
        // Reactor's automatic context propagation (what spring.reactor.context-propagation=auto sets where Spring
        // Boot's spring-boot-reactor is present), before the scheduler first calls the jobs: the run's lease, which
        // @LockedRun and @LeaderOnly put in the subscription's Reactor context, is then Lease.current() on every
        // thread the Mono and the suspend function run on (with io.micrometer:context-propagation on the class path).
        Hooks.enableAutomaticContextPropagation();
    }

    public static void main(String[] args) {
        SpringApplication.run(ReactiveJobsApplication.class, args);
    }
}
