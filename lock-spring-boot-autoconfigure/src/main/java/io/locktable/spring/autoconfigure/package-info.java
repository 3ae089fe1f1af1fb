/**
 * The auto-configuration of LockTable for Spring Boot: the {@link io.locktable.LockTable} bean from {@code
 * locktable.*} properties ({@link io.locktable.spring.autoconfigure.LockTableProperties}), the DynamoDB client it
 * uses, the leader runner and the annotations' advisor, with a failure analysis that names the property at fault.
 */
@NullMarked
package io.locktable.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
