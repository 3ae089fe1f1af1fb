/**
 * Observability of the lock table for Spring Boot's actuator and Micrometer: the {@code locks} endpoint ({@link
 * io.locktable.spring.actuate.LocksEndpoint}), the {@code locktable.*} meters ({@link
 * io.locktable.spring.actuate.LockTableMetrics}) and the {@code locktable} health indicator ({@link
 * io.locktable.spring.actuate.LockTableHealthIndicator}). Each is auto-configured only when its library is on the
 * class path; their data comes from the lock table's listener and the leader runner, never from a DynamoDB request
 * made for a scrape.
 */
@NullMarked
package io.locktable.spring.actuate;

import org.jspecify.annotations.NullMarked;
