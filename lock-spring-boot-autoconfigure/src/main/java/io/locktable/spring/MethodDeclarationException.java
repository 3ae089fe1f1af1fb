package io.locktable.spring;

/**
 * A {@link LeaderOnly} or {@link LockedRun} method that cannot work as declared; turned into a failure analysis at
 * startup.
 */
final class MethodDeclarationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String action;

    MethodDeclarationException(String description, String action) {
        super(description);
        this.action = action;
    }

    MethodDeclarationException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    String action() {
        return action;
    }
}
