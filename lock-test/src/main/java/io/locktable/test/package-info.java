/**
 * Test support for LockTable and for applications that use it: a real DynamoDB-compatible engine for JUnit 5
 * ({@link io.locktable.test.DynamoDbEngineTest}: dynalite, moto, a container or any endpoint), the engine's probed
 * capabilities, and the faults of a real network ({@link io.locktable.test.FaultInjector} per request, {@link
 * io.locktable.test.TcpProxy} on the socket).
 */
@NullMarked
package io.locktable.test;

import org.jspecify.annotations.NullMarked;
