package io.locktable.test;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Prints, at the end of a test run, how many tests were skipped and why, grouped by reason: the tests an engine
 * cannot run (an assumption such as {@link EngineAssumptions#assumeCapability} failed) and those disabled. It is
 * registered with the JUnit Platform launcher through {@code META-INF/services}, so every module with {@code
 * lock-test} on its test class path prints it, for example:
 *
 * <pre>
 * [lock-test] 4 tests skipped
 * [lock-test]   3 × engine dynalite has no TRANSACTIONS: skipped
 * [lock-test]   1 × engine dynalite returns no item on a condition failure
 * </pre>
 */
public final class SkippedTestsSummary implements TestExecutionListener {

    private static final String ASSUMPTION_PREFIX = "Assumption failed: ";

    private final List<Skip> skips = new CopyOnWriteArrayList<>();
    private final PrintStream out;

    /**
     * Creates the listener, printing to the process's own standard error, which the build's console shows even
     * where each test's output goes to a file; the JUnit Platform calls it.
     */
    public SkippedTestsSummary() {
        this(Console.stream());
    }

    SkippedTestsSummary(PrintStream out) {
        this.out = out;
    }

    private record Skip(String test, String reason) {}

    @Override
    public void testPlanExecutionStarted(TestPlan testPlan) {
        skips.clear();
    }

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        skips.add(new Skip(test.getDisplayName(), "disabled: " + (reason == null ? "no reason given" : reason)));
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            String reason = result.getThrowable()
                    .map(Throwable::getMessage)
                    .map(message -> message.startsWith(ASSUMPTION_PREFIX)
                            ? message.substring(ASSUMPTION_PREFIX.length())
                            : message)
                    .orElse("aborted without a reason");
            skips.add(new Skip(test.getDisplayName(), reason));
        }
    }

    @Override
    public void testPlanExecutionFinished(TestPlan testPlan) {
        if (skips.isEmpty()) {
            return;
        }
        Map<String, List<String>> byReason = new TreeMap<>();
        for (Skip skip : skips) {
            byReason.computeIfAbsent(skip.reason(), reason -> new ArrayList<>()).add(skip.test());
        }
        out.println("[lock-test] " + skips.size() + (skips.size() == 1 ? " test" : " tests") + " skipped");
        byReason.forEach((reason, tests) -> out.println("[lock-test]   " + tests.size() + " × " + reason + " "
                + tests.stream().sorted().toList()));
        out.flush();
    }
}
