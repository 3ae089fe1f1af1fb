package io.locktable.bench;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Runs blocking calls on a few threads of their own, so giving back thousands of leases takes seconds. */
final class Parallel {

    private static final int THREADS = 4;

    private Parallel() {}

    static <T> void forEach(List<T> items, Consumer<T> action) {
        ExecutorService executor = Executors.newFixedThreadPool(THREADS);
        try {
            for (T item : items) {
                executor.execute(() -> {
                    try {
                        action.accept(item);
                    } catch (RuntimeException e) {
                        // a failed release frees itself at the lease's end; the figures are taken already
                    }
                });
            }
            executor.shutdown();
            if (!executor.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("releases did not finish within 5 minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } finally {
            executor.shutdownNow();
        }
    }
}
