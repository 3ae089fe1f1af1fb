package io.locktable.spring.test;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngines;
import java.util.List;
import java.util.Objects;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * A Testcontainers container that starts nothing and stands for one of lock-test's engines (dynalite, moto...), so
 * that a test written for {@code @ServiceConnection} runs where Docker is absent, and so that the connection logic
 * can be tested without a container. Where Docker runs, declare a real container in its place; the test stays the
 * same.
 *
 * <pre>{@code
 * @ServiceConnection(name = "locktable")
 * static GenericContainer<?> dynamodb = DockerClientFactory.instance().isDockerAvailable()
 *         ? new GenericContainer<>("amazon/dynamodb-local:2.6.0").withExposedPorts(8000)
 *         : new LockTableEngineContainer();
 * }</pre>
 *
 * <p>Its image name is {@value #IMAGE}, never pulled; it is "running" from the start; its host, exposed port and
 * mapped port are those of the engine's endpoint; its start and stop do nothing.
 */
public class LockTableEngineContainer extends GenericContainer<LockTableEngineContainer> {

    /** The image name it reports, which nothing pulls. */
    public static final String IMAGE = "locktable/lock-test-engine";

    private final DynamoDbEngine engine;

    /** Stands for the engine this JVM's tests run against ({@link DynamoDbEngines#current()}). */
    public LockTableEngineContainer() {
        this(DynamoDbEngines.current());
    }

    /**
     * Stands for an engine.
     *
     * @param engine the engine, reached over plain {@code http}
     */
    public LockTableEngineContainer(DynamoDbEngine engine) {
        super(DockerImageName.parse(IMAGE));
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /**
     * The engine it stands for.
     *
     * @return the engine
     */
    public DynamoDbEngine engine() {
        return engine;
    }

    /** Does nothing: the engine runs already. */
    @Override
    public void start() {}

    /** Does nothing: the engine belongs to lock-test, which stops it when the JVM exits. */
    @Override
    public void stop() {}

    /**
     * The image name, without pulling it.
     *
     * @return {@value #IMAGE}
     */
    @Override
    public String getDockerImageName() {
        return IMAGE;
    }

    /**
     * Always running, as the engine is.
     *
     * @return true
     */
    @Override
    public boolean isRunning() {
        return true;
    }

    /**
     * The engine's host.
     *
     * @return the host of its endpoint
     */
    @Override
    public String getHost() {
        return engine.endpoint().getHost();
    }

    /**
     * The engine's port, as the one exposed port.
     *
     * @return the port of its endpoint
     */
    @Override
    public List<Integer> getExposedPorts() {
        return List.of(engine.endpoint().getPort());
    }

    /**
     * The engine's port, for any port asked.
     *
     * @param originalPort the port asked
     * @return the port of its endpoint
     */
    @Override
    public Integer getMappedPort(int originalPort) {
        return engine.endpoint().getPort();
    }
}
