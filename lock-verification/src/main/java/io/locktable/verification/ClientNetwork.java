package io.locktable.verification;

import io.locktable.test.TcpProxy;
import java.time.Duration;

/**
 * One client's network, through its own {@link TcpProxy}: a pause of the process (nothing reaches the table, so its
 * renewals stop) and the nemesis's faults (a cut, late answers) never overlap, a pause winning.
 */
final class ClientNetwork {

    private final TcpProxy proxy;
    private boolean paused; // guarded by this

    ClientNetwork(TcpProxy proxy) {
        this.proxy = proxy;
    }

    /** The process stands still: no request of its lock table or of its work gets through. */
    synchronized void pause() {
        paused = true;
        proxy.delay(Duration.ZERO, Duration.ZERO);
        proxy.mode(TcpProxy.Mode.BLACKHOLE);
    }

    synchronized void resume() {
        proxy.mode(TcpProxy.Mode.PASS);
        paused = false;
    }

    /** Resets every connection of the client, unless it is paused; true if it did. */
    synchronized boolean cut() {
        if (paused) {
            return false;
        }
        proxy.mode(TcpProxy.Mode.RESET);
        return true;
    }

    /** Answers arrive {@code late} after the engine sent them, unless it is paused; true if it did. */
    synchronized boolean lateAnswers(Duration late) {
        if (paused) {
            return false;
        }
        proxy.delay(Duration.ZERO, late);
        return true;
    }

    /** Back to a plain network, unless a pause holds it. */
    synchronized void heal() {
        if (!paused) {
            proxy.delay(Duration.ZERO, Duration.ZERO);
            proxy.mode(TcpProxy.Mode.PASS);
        }
    }
}
