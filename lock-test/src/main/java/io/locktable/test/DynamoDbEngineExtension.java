package io.locktable.test;

import java.lang.reflect.Parameter;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Resolves {@link DynamoDbEngine}, {@link DynamoDbClient} and {@link DynamoDbAsyncClient} (the engine's shared
 * clients) and {@link TestTable} parameters. A {@link TestTable} is created once per test class and key layout ({@link TableKeys}), and deleted
 * after the class. Use it through {@link DynamoDbEngineTest}.
 */
public final class DynamoDbEngineExtension implements ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE =
            ExtensionContext.Namespace.create(DynamoDbEngineExtension.class);

    /** Creates the extension; JUnit calls it. */
    public DynamoDbEngineExtension() {}

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == DynamoDbEngine.class
                || type == DynamoDbClient.class
                || type == DynamoDbAsyncClient.class
                || type == TestTable.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        DynamoDbEngine engine = DynamoDbEngines.current();
        Class<?> type = parameter.getParameter().getType();
        if (type == DynamoDbEngine.class) {
            return engine;
        }
        if (type == DynamoDbClient.class) {
            return engine.client();
        }
        if (type == DynamoDbAsyncClient.class) {
            return engine.asyncClient();
        }
        if (type == TestTable.class) {
            return table(engine, parameter.getParameter(), context);
        }
        throw new ParameterResolutionException("cannot resolve " + type);
    }

    // Store.getOrComputeIfAbsent: deprecated in JUnit 6 for computeIfAbsent, which JUnit 5 (Spring Boot 3's) lacks
    @SuppressWarnings("deprecation")
    private static TestTable table(DynamoDbEngine engine, Parameter parameter, ExtensionContext context) {
        TableKeys keys = parameter.getAnnotation(TableKeys.class);
        String partitionKey = keys == null ? "pk" : keys.partitionKey();
        String sortKey = keys == null ? "sk" : keys.sortKey();
        ExtensionContext classContext = classContext(context);
        String prefix = classContext.getRequiredTestClass().getSimpleName();
        ExtensionContext.Store store = classContext.getStore(NAMESPACE);
        CreatedTable created = store.getOrComputeIfAbsent(
                "table:" + partitionKey + "/" + sortKey,
                key -> new CreatedTable(engine.createTable(prefix, partitionKey, sortKey.isEmpty() ? null : sortKey)),
                CreatedTable.class);
        return created.table();
    }

    private static ExtensionContext classContext(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getTestMethod().isPresent() && current.getParent().isPresent()) {
            current = current.getParent().get();
        }
        return current;
    }

    /** A table the store deletes when the class is done. */
    private record CreatedTable(TestTable table) implements AutoCloseable {
        @Override
        public void close() {
            table.engine().deleteTable(table.name());
        }
    }
}
