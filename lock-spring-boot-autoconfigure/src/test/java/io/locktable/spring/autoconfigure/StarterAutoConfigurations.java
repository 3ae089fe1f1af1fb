package io.locktable.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;

/** The sets of auto-configurations that several context tests start from, written once. */
final class StarterAutoConfigurations {

    /** The starter's client, table, {@code @LeaderOnly}, endpoint, meters and health, over Boot's simple registry. */
    static final AutoConfigurations WITH_ACTUATOR = AutoConfigurations.of(
            LockTableDynamoDbClientAutoConfiguration.class,
            LockTableAutoConfiguration.class,
            LeaderOnlyAutoConfiguration.class,
            LockTableActuatorAutoConfiguration.class,
            LockTableMetricsAutoConfiguration.class,
            LockTableHealthAutoConfiguration.class,
            MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class);

    /** The starter's client, table, {@code @LockedRun}, endpoint and meters, over Boot's simple registry. */
    static final AutoConfigurations LOCKED_RUNS = AutoConfigurations.of(
            LockTableDynamoDbClientAutoConfiguration.class,
            LockTableAutoConfiguration.class,
            LockedRunAutoConfiguration.class,
            LockTableActuatorAutoConfiguration.class,
            LockTableMetricsAutoConfiguration.class,
            MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class);

    private StarterAutoConfigurations() {}
}
