package io.locktable.samples.reactive

import io.locktable.Lease
import io.locktable.spring.LeaderOnly
import kotlinx.coroutines.delay
import org.springframework.scheduling.annotation.Scheduled
import org.springframework.stereotype.Component

/**
 * A Kotlin suspend job that runs on the leader of the cluster only: Spring's scheduler subscribes to it at each tick,
 * and `@LeaderOnly` runs it while this instance leads, with the term's lease bound, and cancels it if the term ends
 * while it is suspended. Open (Kotlin classes are final) so that Spring's proxy can intercept it.
 */
@Component
open class OrderSweep(private val log: JobLog) {

    @Scheduled(fixedDelayString = "\${jobs.sweep.every:1s}")
    @LeaderOnly("order-sweeper")
    open suspend fun sweep() {
        delay(50) // the sweep's work, suspended: no thread is held meanwhile
        // The term's lease, on whichever thread the coroutine resumed: carried by Reactor's context propagation
        val lease = Lease.current().orElseThrow()
        log.swept(lease, lease.isHeld)
    }
}
