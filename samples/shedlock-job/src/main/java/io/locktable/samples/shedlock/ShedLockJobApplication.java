package io.locktable.samples.shedlock;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * A service of which several instances run, with a ShedLock job as ShedLock's users have it: {@code @EnableScheduling},
 * {@code @EnableSchedulerLock} and a {@code @Scheduled @SchedulerLock} method ({@link ExportJob}). The one thing that
 * is not here is a {@code LockProvider} bean: with {@code lock-shedlock} and the starter on the class path, LockTable's
 * provider is auto-configured over the starter's {@code LockTable}.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "30s")
public class ShedLockJobApplication {

    /**
     * Starts an instance.
     *
     * @param args Spring Boot arguments, such as {@code --export.instance=a}
     */
    public static void main(String[] args) {
        SpringApplication.run(ShedLockJobApplication.class, args);
    }
}
