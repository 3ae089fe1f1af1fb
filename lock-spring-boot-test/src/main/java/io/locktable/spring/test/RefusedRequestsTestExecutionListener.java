package io.locktable.spring.test;

import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestExecutionListener;
import org.springframework.test.context.support.DirtiesContextTestExecutionListener;

/**
 * Fails a test whose application context sent requests that its engine refused as unsupported ({@link
 * RefusedRequests}), or fenced writes to no table in the in-memory test mode ({@link InMemoryFencedWrites}), with an
 * {@link AssertionError} that says what was sent and the fix: after each test method,
 * and again after the test class, since a {@code @Scheduled} job may be refused after a short test method ended.
 * Only a context that is loaded already is looked at: this never loads one. Each refusal fails one test only.
 */
final class RefusedRequestsTestExecutionListener implements TestExecutionListener, Ordered {

    /**
     * Later than {@link DirtiesContextTestExecutionListener}'s order, so that the after-callbacks, which run in
     * reverse order, look at the context before {@code @DirtiesContext} closes it.
     */
    private static final int ORDER = 3_500;

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public void afterTestMethod(TestContext testContext) {
        failIfRefused(testContext);
    }

    @Override
    public void afterTestClass(TestContext testContext) {
        failIfRefused(testContext);
    }

    private static void failIfRefused(TestContext testContext) {
        if (!testContext.hasApplicationContext()) {
            return;
        }
        List<String> messages = testContext
                .getApplicationContext()
                .getBeanProvider(UnreportedFailures.class)
                .orderedStream()
                .flatMap(failures -> failures.takeUnreported().stream())
                .toList();
        if (!messages.isEmpty()) {
            throw new AssertionError(String.join("\n", messages));
        }
    }
}
