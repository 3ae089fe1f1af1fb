package io.locktable.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Describes a {@link LeaderOnly} or {@link LockedRun} method that cannot work as declared, and what to change. */
final class MethodDeclarationFailureAnalyzer extends AbstractFailureAnalyzer<MethodDeclarationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MethodDeclarationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action, cause);
    }
}
