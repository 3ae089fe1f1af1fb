package io.locktable.samples.integration;

import io.locktable.Lease;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The candidate of the role {@code order-sweeper}, and the work it does while it leads: every instance schedules the
 * sweep, and only the leader's sweeps do anything. The term's lease comes from {@link Lease#current()} in {@link
 * #onGranted}, where the registry binds it on the initiator's thread while it holds the lock; each sweep writes with
 * its fencing token, so a leader that lost its lease without knowing it yet (a process frozen past its lease) is
 * refused by the {@link SweepJournal}.
 */
@Component
class OrderSweeper implements Candidate {

    private static final Logger log = LoggerFactory.getLogger(OrderSweeper.class);

    private final SweepJournal journal;
    private final String instance;
    private final AtomicReference<Lease> term = new AtomicReference<>();
    private final AtomicLong sweeps = new AtomicLong();

    OrderSweeper(SweepJournal journal, @Value("${sweeper.instance:local}") String instance) {
        this.journal = journal;
        this.instance = instance;
    }

    @Override
    public String getRole() {
        return "order-sweeper";
    }

    @Override
    public String getId() {
        return instance;
    }

    @Override
    public void onGranted(Context context) {
        Lease lease = Lease.current().orElseThrow(); // the lease of the initiator's lock, on the initiator's thread
        log.info("leading {} with fencing token {}", getRole(), lease.fencingToken());
        note(lease, "granted"); // before the term's first sweep
        term.set(lease);
    }

    @Override
    public void onRevoked(Context context) {
        Lease lease = term.getAndSet(null);
        log.info("no longer leading {} (fencing token {})", getRole(), lease == null ? "-" : lease.fencingToken());
    }

    /** Sweeps, on the leader only; the other instances' ticks do nothing. */
    @Scheduled(fixedDelayString = "${sweeper.every:1s}")
    public void sweep() {
        Lease lease = term.get();
        if (lease == null) {
            return;
        }
        note(lease, "sweep " + sweeps.incrementAndGet());
    }

    /** Notes a step with the term's token; refused once a leader with a higher token has written. */
    private void note(Lease lease, String step) {
        if (!journal.append(lease.fencingToken(), instance, step)) {
            log.warn(
                    "{} REFUSED: a leader with a higher fencing token than {} has written", step, lease.fencingToken());
        }
    }

    /** This instance's term; null while it does not lead. */
    Lease term() {
        return term.get();
    }
}
