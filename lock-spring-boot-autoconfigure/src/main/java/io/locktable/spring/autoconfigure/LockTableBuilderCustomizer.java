package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;

/**
 * Adjusts the builder of the auto-configured {@link LockTable} after the properties were applied; every bean of this
 * type, in {@link org.springframework.core.Ordered order}. Options set here replace those of the properties.
 *
 * <pre>{@code
 * @Bean
 * LockTableBuilderCustomizer moreRenewalThreads() {
 *     return builder -> builder.schedulerThreads(4);
 * }
 * }</pre>
 */
@FunctionalInterface
public interface LockTableBuilderCustomizer {

    /**
     * Adjusts the builder.
     *
     * @param builder the builder of the auto-configured lock table
     */
    void customize(LockTable.Builder builder);
}
