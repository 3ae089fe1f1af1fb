package io.locktable.samples.demo;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** The schedules of the jobs; a test that calls the jobs itself turns them off with {@code demo.scheduling=false}. */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
@ConditionalOnBooleanProperty(name = "demo.scheduling", matchIfMissing = true)
class SchedulingConfiguration {}
