package io.locktable.spring.autoconfigure;

import io.locktable.LockTable;

/**
 * Adjusts the {@link LockTable.Builder} of the auto-configured {@link LockTable} before it is built, after the
 * {@code locktable.*} properties were applied: for instance its {@link LockTable.Builder#options options} or
 * {@link LockTable.Builder#schedulerThreads scheduler threads}. Every bean of this type is applied, in {@link
 * org.springframework.core.Ordered order}. Options set here replace those built from {@code locktable.holder} and
 * {@code locktable.time-to-live.*}.
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
