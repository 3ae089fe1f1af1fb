/**
 * Test support for applications that use the LockTable Spring Boot starter: {@code @ServiceConnection} for
 * DynamoDB-compatible containers ({@link io.locktable.spring.test.LockTableEngineContainer} stands for lock-test's
 * engines where Docker is absent), {@link io.locktable.spring.test.LockTableTestProperties} for a {@code
 * @DynamicPropertySource} (its tests fail when the engine refuses a request as unsupported), and the test mode
 * {@code locktable.test.in-memory}, whose locks are in memory ({@link io.locktable.spring.test.LockTableTestMode}),
 * and {@link io.locktable.spring.test.ApplicationProcess} to run an application's instances in JVMs of their own and
 * kill one as a crash would. Use it with test scope only.
 */
@NullMarked
package io.locktable.spring.test;

import org.jspecify.annotations.NullMarked;
