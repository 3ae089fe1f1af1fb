package io.locktable.spring.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/** Notes the name of each operation a client sends, as it goes on the wire: add it to the client under test. */
final class SentOperations implements ExecutionInterceptor {

    private final List<String> operations = new CopyOnWriteArrayList<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        operations.add(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME));
    }

    /** What was sent so far, in order; a live view. */
    List<String> operations() {
        return operations;
    }
}
