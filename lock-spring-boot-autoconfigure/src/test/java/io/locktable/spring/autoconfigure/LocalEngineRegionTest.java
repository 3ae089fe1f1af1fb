package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.test.MotoServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;

/**
 * Issue 37: a local engine reached with a region that is no AWS region ({@code locktable.dynamodb.region=local}).
 * moto answers every request there with HTTP 500; the starter used to log "DynamoDB throttled or failed" and start,
 * its locks failing for ever. It now stops startup naming the region. On lock-test's moto (one request at a time),
 * whatever engine the run selected, as only moto answers so; skipped where moto is not installed.
 */
class LocalEngineRegionTest {

    @BeforeAll
    static void moto() {
        Assumptions.assumeTrue(MotoServer.isInstalled(), "moto is not installed (pip install 'moto[server]')");
    }

    @Test
    void aRegionALocalEngineDoesNotKnowStopsStartupNamingTheRegion() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        LockTableDynamoDbClientAutoConfiguration.class, LockTableAutoConfiguration.class))
                .withBean(
                        LockTableDynamoDbClientBuilderCustomizer.class,
                        () -> builder -> builder.credentialsProvider(
                                        StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())))
                .withPropertyValues(
                        "locktable.table-name=Locks",
                        "locktable.dynamodb.endpoint=" + MotoServer.shared().endpoint(),
                        "locktable.dynamodb.region=local")
                .run(context -> {
                    FailureAnalysis analysis = Analyses.of(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .isEqualTo("The DynamoDB engine at "
                                    + MotoServer.shared().endpoint() + " in region local"
                                    + " answered HTTP 500 to DescribeTable for the lock table 'Locks'. 'local' is no"
                                    + " AWS region, and a local engine such as moto answers every request in a region"
                                    + " it does not know that way, so the locks would never work.");
                    assertThat(analysis.getAction())
                            .startsWith("Set locktable.dynamodb.region to an AWS region name, such as us-east-1");
                });
    }
}
