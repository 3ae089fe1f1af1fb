package io.locktable.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Describes a {@code locktable.*} setting that kept the application from starting, and what to change. */
final class LockTableFailureAnalyzer extends AbstractFailureAnalyzer<LockTableConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LockTableConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
