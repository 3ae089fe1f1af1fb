/** The auto-configuration of LockTable for Spring Boot, from the {@code locktable.*} properties. */
@NullMarked
package io.locktable.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
