package io.locktable.samples.integration;

import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * The leader initiator, as with any registry: it takes the candidate's role as a lock of the registry, here the
 * auto-configured {@code LockTableLockRegistry}, whose lease of {@code locktable.lease-duration} renews itself while
 * held. At each heart beat it checks the lock ({@code tryLock}, answered without a request while the lease is held),
 * and steps down once the lease is lost; a stopped instance unlocks, a crashed one is taken over after its lease.
 */
@Configuration(proxyBeanMethods = false)
class LeaderConfiguration {

    @Bean
    LockRegistryLeaderInitiator leaderInitiator(
            LockRegistry<?> registry,
            OrderSweeper candidate,
            @Value("${sweeper.heart-beat:500ms}") Duration heartBeat) {
        LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
        initiator.setHeartBeatMillis(heartBeat.toMillis());
        return initiator;
    }
}
