package io.locktable.spring.test;

import java.util.Optional;

/**
 * What a test's application context did that should fail the test although the code under test carried on (a
 * {@code @Scheduled} job only logs an ERROR): {@link RefusedRequestsTestExecutionListener} fails the test with {@link
 * #takeUnreported()} of each such bean of the context.
 */
interface UnreportedFailures {

    /**
     * What happened since the last call, as the message of a test's failure; each event is in one message only.
     *
     * @return the message, or empty when nothing new happened
     */
    Optional<String> takeUnreported();
}
