package io.locktable.verification;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The events of one workload run, in the order they happened, from every client. Thread-safe. */
public final class History {

    private final List<Op> ops = new ArrayList<>();

    /**
     * Records an event.
     *
     * @param op the event
     */
    public synchronized void add(Op op) {
        ops.add(op);
    }

    /** @return the events so far */
    public synchronized List<Op> ops() {
        return List.copyOf(ops);
    }

    /**
     * Writes the history as JSON lines, so that a failing run can be read afterwards.
     *
     * @param file where
     */
    public void save(Path file) {
        List<String> lines = ops().stream().map(Op::toJson).toList();
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.write(file, lines);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
