package io.locktable.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Describes a {@link LeaderOnly} method that cannot work as declared, and what to change. */
final class LeaderOnlyFailureAnalyzer extends AbstractFailureAnalyzer<LeaderOnlyDeclarationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, LeaderOnlyDeclarationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
    }
}
