package io.locktable.spring.test;

/**
 * Stands in, in this module's tests only, for the marker class of {@code lock-spring-boot-test} (which depends on this
 * module, so it cannot be a dependency of its tests): with it on the class path the starter honours {@code
 * locktable.test.in-memory=true} and builds its lock table in memory. Tests about Spring wiring use that mode so they
 * start no engine; a test that needs the mode off hides this class with a {@code FilteredClassLoader}.
 */
public final class LockTableTestMode {

    /** The property that switches the test mode on, as in {@code lock-spring-boot-test}. */
    public static final String PROPERTY = "locktable.test.in-memory";

    /** The property and its value, for {@code withPropertyValues}. */
    public static final String ON = PROPERTY + "=true";

    private LockTableTestMode() {}
}
