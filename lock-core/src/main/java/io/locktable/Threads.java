package io.locktable;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Names the library's threads and makes them daemons, so a lock table never keeps a JVM alive. */
final class Threads {

    private Threads() {}

    static ThreadFactory daemons(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
