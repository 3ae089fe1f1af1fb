package io.locktable.samples.boot3;

import io.locktable.LockTable;
import io.locktable.shedlock.LockTableLockProvider;
import java.net.URI;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClientBuilder;

/**
 * A Spring Boot 3 service with a ShedLock job on LockTable's leases. The starter needs Spring Boot 4, so the three
 * beans it would provide are written out here: the {@code DynamoDbClient}, the {@code LockTable} over it, and
 * ShedLock's {@code LockProvider} over that ({@code lock-shedlock}'s {@link LockTableLockProvider}). The job ({@link
 * ReportJob}) is a ShedLock job as any.
 */
@SpringBootApplication
@EnableScheduling
@EnableSchedulerLock(defaultLockAtMostFor = "30s")
public class Boot3ShedLockApplication {

    /**
     * Starts an instance.
     *
     * @param args Spring Boot arguments, such as {@code --app.locks.table-name=Locks}
     */
    public static void main(String[] args) {
        SpringApplication.run(Boot3ShedLockApplication.class, args);
    }

    @Bean
    DynamoDbClient dynamoDbClient(
            @Value("${app.dynamodb.region:us-east-1}") String region,
            @Value("${app.dynamodb.endpoint:}") String endpoint) {
        DynamoDbClientBuilder builder = DynamoDbClient.builder().region(Region.of(region));
        if (!endpoint.isEmpty()) {
            builder.endpointOverride(URI.create(endpoint)); // a local engine; unset for DynamoDB
        }
        return builder.build();
    }

    @Bean
    LockTable lockTable(
            DynamoDbClient client,
            @Value("${app.locks.table-name}") String tableName,
            @Value("${app.locks.create-table:false}") boolean createTable) {
        LockTable lockTable = LockTable.builder(client, tableName, "pk").build();
        if (createTable) {
            lockTable.createTableIfMissing(); // for a local engine; in production the table exists
        }
        return lockTable;
    }

    @Bean
    LockProvider lockProvider(LockTable lockTable) {
        return new LockTableLockProvider(lockTable);
    }
}
