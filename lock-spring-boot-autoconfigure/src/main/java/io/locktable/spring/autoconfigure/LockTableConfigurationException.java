package io.locktable.spring.autoconfigure;

/** A setting that keeps the starter from starting, with what to change: {@link LockTableFailureAnalyzer}. */
final class LockTableConfigurationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String action;

    LockTableConfigurationException(String description, String action) {
        super(description);
        this.action = action;
    }

    LockTableConfigurationException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    String action() {
        return action;
    }
}
