package io.locktable.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

class SkippedTestsSummaryTest {

    /** Run by the test below through the launcher; Surefire leaves nested classes alone. */
    static class Examples {
        @Test
        void passes() {}

        @Test
        void needsTransactions() {
            Assumptions.assumeTrue(false, "engine dynalite has no TRANSACTIONS: skipped");
        }

        @Test
        void alsoNeedsTransactions() {
            Assumptions.assumeTrue(false, "engine dynalite has no TRANSACTIONS: skipped");
        }

        @Test
        @Disabled("not yet")
        void disabled() {}
    }

    private static String summaryOf(Class<?> tests) {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        SkippedTestsSummary summary = new SkippedTestsSummary(new PrintStream(printed, true, StandardCharsets.UTF_8));
        // without the auto-registered copy of the listener, which would print this inner run's skips to the console
        LauncherFactory.create(LauncherConfig.builder()
                        .enableTestExecutionListenerAutoRegistration(false)
                        .build())
                .execute(
                        LauncherDiscoveryRequestBuilder.request()
                                .selectors(selectClass(tests))
                                .build(),
                        summary);
        return printed.toString(StandardCharsets.UTF_8);
    }

    @Test
    void countsSkippedTestsByReason() {
        assertThat(summaryOf(Examples.class).lines())
                .containsExactly(
                        "[lock-test] 3 tests skipped",
                        "[lock-test]   1 × disabled: not yet [disabled()]",
                        "[lock-test]   2 × engine dynalite has no TRANSACTIONS: skipped"
                                + " [alsoNeedsTransactions(), needsTransactions()]");
    }

    static class NothingSkipped {
        @Test
        void passes() {}
    }

    @Test
    void printsNothingWhenNothingWasSkipped() {
        assertThat(summaryOf(NothingSkipped.class)).isEmpty();
    }
}
