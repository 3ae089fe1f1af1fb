package io.locktable;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;

/** Records every request attempt a client sends, by operation name, in order. */
final class RequestRecorder implements ExecutionInterceptor {

    record Sent(String operation, SdkRequest request) {}

    private final List<Sent> sent = new CopyOnWriteArrayList<>();

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        sent.add(new Sent(attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME), context.request()));
    }

    List<String> operations() {
        return sent.stream().map(Sent::operation).toList();
    }

    List<Sent> sent() {
        return List.copyOf(sent);
    }

    long count(String operation) {
        return sent.stream().filter(s -> s.operation().equals(operation)).count();
    }

    void clear() {
        sent.clear();
    }
}
