package io.locktable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

/**
 * What happened in a reliability case, on this JVM's monotonic clock: every grant, believed-held interval and
 * fenced write. Written as JSON lines under {@code target/reliability} so a failed run can be read afterwards; its
 * invariants are checked by {@link #assertInvariants()}.
 */
final class History {

    /** One event: a grant, the end of a lease, or a fenced write and whether the resource applied it. */
    record Event(String type, String lock, String owner, long fence, long startNanos, long endNanos, String outcome) {
        String json() {
            return String.format(
                    "{\"type\":\"%s\",\"lock\":\"%s\",\"owner\":\"%s\",\"fence\":%d,\"startNanos\":%d,"
                            + "\"endNanos\":%d,\"outcome\":\"%s\"}",
                    type, lock, owner, fence, startNanos, endNanos, outcome);
        }
    }

    private final String name;
    private final List<Event> events = new CopyOnWriteArrayList<>();

    History(String name) {
        this.name = name;
    }

    /**
     * Records a lease, right after its acquire returned: believed held from now until it ended, or until the end of
     * its lease on the monotonic clock if that came first ({@link Lease#isHeld()} is false from then on). A lease
     * that had ended when its acquire returned is only noted. The start
     * is when the holder learned it holds the lock, not when the acquire was sent: with the SDK's retries, the
     * first attempt of an acquire can leave before the lock was free, and only a later attempt was applied.
     */
    void held(Lease lease) {
        long sent = System.nanoTime();
        if (!lease.isHeld()) {
            // an acquire answered after a whole lease returns a lease that has ended: never believed held, so
            // neither a grant in the order the holders saw nor a believed-held interval (its token may well be
            // lower than one granted while its answer was late)
            note("late-grant", lease.name(), lease.fencingToken(), "ended at return");
            return;
        }
        events.add(new Event("grant", lease.name(), lease.owner(), lease.fencingToken(), sent, sent, "granted"));
        lease.whenEnded()
                .thenAccept(end -> events.add(new Event(
                        "held",
                        lease.name(),
                        lease.owner(),
                        lease.fencingToken(),
                        sent,
                        System.nanoTime(),
                        end.name())));
    }

    void write(String lock, String owner, long fence, long sentNanos, boolean applied) {
        events.add(
                new Event("write", lock, owner, fence, sentNanos, System.nanoTime(), applied ? "applied" : "refused"));
    }

    void note(String type, String lock, long fence, String outcome) {
        long now = System.nanoTime();
        events.add(new Event(type, lock, "", fence, now, now, outcome));
    }

    List<Event> events(String type) {
        return events.stream().filter(e -> e.type().equals(type)).toList();
    }

    int operations() {
        return events.size();
    }

    Path save() {
        Path file = Path.of("target", "reliability", name + ".jsonl");
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, events.stream().map(Event::json).toList());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Checks the invariants and returns the violations found (empty when all hold): each token granted once and
     * rising in grant order; the resource never applying a lower token after a higher one; believed-held intervals
     * of one lock never overlapping.
     */
    List<String> violations() {
        List<String> violations = new ArrayList<>();
        Map<String, List<Event>> grants = events("grant").stream().collect(Collectors.groupingBy(Event::lock));
        grants.forEach((lock, list) -> {
            List<Event> ordered = new ArrayList<>(list);
            ordered.sort(Comparator.comparingLong(Event::startNanos));
            for (int i = 1; i < ordered.size(); i++) {
                if (ordered.get(i).fence() <= ordered.get(i - 1).fence()) {
                    violations.add("lock " + lock + ": token " + ordered.get(i).fence() + " granted after "
                            + ordered.get(i - 1).fence());
                }
            }
        });
        Map<String, Long> highestApplied = new HashMap<>();
        events("write").stream()
                .filter(e -> e.outcome().equals("applied"))
                .sorted(Comparator.comparingLong(Event::endNanos))
                .forEach(e -> {
                    long highest = highestApplied.getOrDefault(e.lock(), 0L);
                    if (e.fence() < highest) {
                        violations.add(
                                "lock " + e.lock() + ": resource applied token " + e.fence() + " after " + highest);
                    }
                    highestApplied.put(e.lock(), Math.max(highest, e.fence()));
                });
        Map<String, List<Event>> held = events("held").stream().collect(Collectors.groupingBy(Event::lock));
        held.forEach((lock, list) -> {
            List<Event> ordered = new ArrayList<>(list);
            ordered.sort(Comparator.comparingLong(Event::startNanos));
            for (int i = 1; i < ordered.size(); i++) {
                Event before = ordered.get(i - 1);
                Event after = ordered.get(i);
                if (after.startNanos() < before.endNanos()) {
                    violations.add("lock " + lock + ": token " + after.fence() + " believed held from "
                            + after.startNanos() + " while token " + before.fence() + " was until "
                            + before.endNanos());
                }
            }
        });
        return violations;
    }
}
