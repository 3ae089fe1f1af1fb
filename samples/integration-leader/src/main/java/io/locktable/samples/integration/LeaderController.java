package io.locktable.samples.integration;

import io.locktable.Lease;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/** Whether this instance leads, with which fencing token, and the sweep journal. */
@RestController
class LeaderController {

    private final OrderSweeper sweeper;
    private final SweepJournal journal;

    LeaderController(OrderSweeper sweeper, SweepJournal journal) {
        this.sweeper = sweeper;
        this.journal = journal;
    }

    /** Leading: granted by the initiator and the lease still held; the token is 0 while not leading. */
    @GetMapping("/leader")
    Map<String, Object> leader() {
        Lease term = sweeper.term();
        boolean leading = term != null && term.isHeld();
        return Map.of(
                "instance", sweeper.getId(), "leader", leading, "fencingToken", leading ? term.fencingToken() : 0L);
    }

    @GetMapping("/journal")
    List<String> journal() {
        return journal.entries();
    }
}
