package io.locktable.verification;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The network faults of a run, chosen by its seed: every period, one client's connections are cut (reset for a
 * moment) or its answers come late (by up to a lease) for a while, or nothing happens. Pauses are the clients' own.
 */
final class Nemesis implements Runnable {

    private final List<ClientNetwork> networks;
    private final Random random;
    private final Duration lease;
    private final long deadlineNanos;
    final AtomicInteger cuts = new AtomicInteger();
    final AtomicInteger lateSpells = new AtomicInteger();

    Nemesis(List<ClientNetwork> networks, long seed, Duration lease, long deadlineNanos) {
        this.networks = networks;
        this.random = new Random(seed);
        this.lease = lease;
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void run() {
        try {
            while (System.nanoTime() - deadlineNanos < 0) {
                Thread.sleep(500 + random.nextInt(500));
                ClientNetwork network = networks.get(random.nextInt(networks.size()));
                int fault = random.nextInt(3);
                if (fault == 0 && network.cut()) {
                    cuts.incrementAndGet();
                    Thread.sleep(50 + random.nextInt(150));
                } else if (fault == 1
                        && network.lateAnswers(
                                lease.multipliedBy(1 + random.nextInt(8)).dividedBy(10))) {
                    lateSpells.incrementAndGet();
                    Thread.sleep(300 + random.nextInt(700));
                }
                network.heal();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            networks.forEach(ClientNetwork::heal);
        }
    }
}
