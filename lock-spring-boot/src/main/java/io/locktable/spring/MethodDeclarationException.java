package io.locktable.spring;

import org.jspecify.annotations.Nullable;

/** A {@link LeaderOnly} or {@link LockedRun} method that cannot work as declared: a failure analysis at startup. */
final class MethodDeclarationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** What to change, the analysis's action. */
    final String action;

    MethodDeclarationException(String description, String action) {
        this(description, action, null);
    }

    MethodDeclarationException(String description, String action, @Nullable Throwable cause) {
        super(description, cause);
        this.action = action;
    }
}
