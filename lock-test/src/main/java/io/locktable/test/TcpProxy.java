package io.locktable.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a free loopback port in front of an engine, whose network can be made to fail for the clients
 * that go through it: connections that stall, that are reset, or whose replies are lost after the engine applied
 * the request. Unlike an SDK interceptor it fails the real socket, so the SDK's own timeouts, retries and
 * connection pool are part of what is tested.
 *
 * <p>It can also stand for the network's distance: {@link #delay(Duration, Duration)} holds every request and every
 * reply back for a fixed time before forwarding it, below the SDK, so a client pays it as time on the wire (a
 * non-blocking client keeps its threads meanwhile) and concurrent requests are delayed side by side, not one after
 * the other.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.start(engine.endpoint())) {
 *     DynamoDbClient client = engine.clientBuilder().endpointOverride(proxy.endpoint()).build();
 *     ...
 *     proxy.mode(TcpProxy.Mode.BLACKHOLE); // the client's requests go unanswered from now on
 * }
 * }</pre>
 */
public final class TcpProxy implements AutoCloseable {

    /** What the proxy does with the bytes it is given. */
    public enum Mode {
        /** Forwards both ways. */
        PASS,
        /**
         * Accepts and reads, forwards nothing either way: requests hang until the client gives up. A connection that
         * lost bytes this way is reset when it next carries any after the mode changed.
         */
        BLACKHOLE,
        /** Resets every open connection at once, and every new one as it arrives. */
        RESET,
        /** Forwards requests to the engine, which applies them, then resets the connection instead of replying. */
        DROP_REPLIES
    }

    private static final int BUFFER = 16 * 1024;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong droppedReplies = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private volatile Mode mode = Mode.PASS;
    private volatile long requestDelayNanos;
    private volatile long replyDelayNanos;

    private TcpProxy(ServerSocket server, InetSocketAddress target) {
        this.server = server;
        this.target = target;
    }

    /**
     * Starts a proxy to an HTTP endpoint, in {@link Mode#PASS}.
     *
     * @param endpoint where the engine answers, such as {@link DynamoDbEngine#endpoint()}
     * @return the running proxy; close it when done
     * @throws IllegalArgumentException if the endpoint is not plain {@code http}: TLS would not verify against a
     *     loopback address, so tests through the proxy skip such engines (see {@link #supports(URI)})
     * @throws UncheckedIOException if no loopback port could be opened
     */
    public static TcpProxy start(URI endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        if (!supports(endpoint)) {
            throw new IllegalArgumentException("TcpProxy relays plain http only, not " + endpoint);
        }
        int port = endpoint.getPort() != -1 ? endpoint.getPort() : 80;
        try {
            ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            TcpProxy proxy = new TcpProxy(server, new InetSocketAddress(endpoint.getHost(), port));
            daemon("locktable-proxy-accept", proxy::acceptLoop).start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("could not open a loopback port for the proxy", e);
        }
    }

    /**
     * Tells whether the proxy can stand in front of an endpoint: plain {@code http}, as local engines are.
     *
     * @param endpoint the engine's endpoint
     * @return true for an {@code http} URL with a host
     */
    public static boolean supports(URI endpoint) {
        return "http".equalsIgnoreCase(endpoint.getScheme()) && endpoint.getHost() != null;
    }

    /**
     * Where clients reach the proxy.
     *
     * @return {@code http://127.0.0.1:<port>}
     */
    public URI endpoint() {
        return URI.create("http://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort());
    }

    /**
     * Changes what the proxy does from now on; {@link Mode#RESET} also resets the connections open now.
     *
     * @param mode the new mode
     */
    public void mode(Mode mode) {
        this.mode = Objects.requireNonNull(mode, "mode");
        if (mode == Mode.RESET) {
            open.forEach(this::reset);
        }
    }

    /**
     * Holds back what passes through from now on: each request's bytes reach the engine {@code requests} after they
     * reached the proxy, and each reply's bytes reach the client {@code replies} after the engine sent them, so a
     * request costs one round trip of {@code requests + replies} more. Bytes stay in order on each connection, and
     * connections are delayed side by side. {@link Duration#ZERO} both ways forwards at once again (after the bytes
     * already held back). The {@link Mode} still applies as bytes arrive.
     *
     * @param requests the delay from client to engine
     * @param replies the delay from engine to client
     * @throws IllegalArgumentException if a delay is negative
     */
    public void delay(Duration requests, Duration replies) {
        if (requests.isNegative() || replies.isNegative()) {
            throw new IllegalArgumentException("delays must not be negative: " + requests + ", " + replies);
        }
        this.requestDelayNanos = requests.toNanos();
        this.replyDelayNanos = replies.toNanos();
    }

    /**
     * How many replies {@link Mode#DROP_REPLIES} has kept from the clients so far.
     *
     * @return the count
     */
    public long droppedReplies() {
        return droppedReplies.get();
    }

    /**
     * How many connections clients have opened through the proxy.
     *
     * @return the count
     */
    public long acceptedConnections() {
        return accepted.get();
    }

    /** Stops listening and resets every open connection. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        open.forEach(this::reset);
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            accepted.incrementAndGet();
            if (mode == Mode.RESET) {
                reset(client);
                continue;
            }
            daemon("locktable-proxy-connect", () -> connect(client)).start();
        }
    }

    private void connect(Socket client) {
        Socket upstream = new Socket();
        try {
            upstream.connect(target, 5_000);
            // forward each piece as it comes: a proxy that waited to fill segments would add delays of its own
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
        } catch (IOException e) {
            reset(client);
            closeQuietly(upstream);
            return;
        }
        open.add(client);
        open.add(upstream);
        AtomicInteger directionsEnded = new AtomicInteger();
        daemon("locktable-proxy-up", () -> pump(client, upstream, false, directionsEnded))
                .start();
        daemon("locktable-proxy-down", () -> pump(upstream, client, true, directionsEnded))
                .start();
    }

    private void pump(Socket from, Socket to, boolean replies, AtomicInteger directionsEnded) {
        byte[] buffer = new byte[BUFFER];
        Delayed delayed = null; // once bytes were held back on this connection, later ones queue behind them
        boolean ended = false; // the sender closed its side: an orderly end, passed on as one
        try {
            InputStream in = from.getInputStream(); // not closed here: that would close the socket both ways
            OutputStream out = to.getOutputStream();
            int read;
            boolean discarded = false;
            while (true) {
                read = in.read(buffer);
                if (read == -1) {
                    ended = true;
                    break;
                }
                Mode now = mode;
                if (now == Mode.BLACKHOLE) {
                    discarded = true;
                    continue;
                }
                if (discarded) {
                    break; // bytes were lost on this connection: it cannot carry HTTP any more
                }
                if (now == Mode.RESET) {
                    break;
                }
                if (now == Mode.DROP_REPLIES && replies) {
                    droppedReplies.incrementAndGet();
                    break;
                }
                long delay = replies ? replyDelayNanos : requestDelayNanos;
                if (delayed == null && delay > 0) {
                    delayed = new Delayed(from, to, out, directionsEnded);
                    daemon(replies ? "locktable-proxy-delay-down" : "locktable-proxy-delay-up", delayed::run)
                            .start();
                }
                if (delayed != null) {
                    delayed.add(new Chunk(System.nanoTime() + delay, Arrays.copyOf(buffer, read)));
                } else {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // the other side went away: end both
        } finally {
            if (ended && delayed != null) {
                delayed.add(Chunk.END); // the bytes held back still go, then this direction ends in order
            } else if (ended) {
                endInOrder(from, to, directionsEnded);
            } else {
                if (delayed != null) {
                    delayed.add(Chunk.ABORT);
                }
                reset(from);
                reset(to);
            }
        }
    }

    /** Bytes that reached the proxy, and when they may go on. */
    private record Chunk(long dueNanos, byte[] bytes) {
        static final Chunk END = new Chunk(0, new byte[0]);
        static final Chunk ABORT = new Chunk(0, new byte[0]);
    }

    /** Forwards the bytes of one direction of a connection, in order, each when its delay has passed. */
    private final class Delayed {
        private final BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        private final Socket from;
        private final Socket to;
        private final OutputStream out;
        private final AtomicInteger directionsEnded;

        Delayed(Socket from, Socket to, OutputStream out, AtomicInteger directionsEnded) {
            this.from = from;
            this.to = to;
            this.out = out;
            this.directionsEnded = directionsEnded;
        }

        void add(Chunk chunk) {
            queue.add(chunk);
        }

        void run() {
            boolean inOrder = false;
            try {
                while (true) {
                    Chunk chunk = queue.take();
                    if (chunk == Chunk.END || chunk == Chunk.ABORT) {
                        inOrder = chunk == Chunk.END;
                        break;
                    }
                    long wait;
                    while ((wait = chunk.dueNanos() - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    out.write(chunk.bytes());
                    out.flush();
                }
            } catch (IOException e) {
                // the other side went away: end both
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (inOrder) {
                    endInOrder(from, to, directionsEnded);
                } else {
                    reset(from);
                    reset(to);
                }
            }
        }
    }

    /**
     * One direction ended in order (its sender closed it): passes the end on with a FIN, so the receiver still reads
     * every byte sent before it, which a reset could discard; once both directions ended, closes both sockets.
     */
    private void endInOrder(Socket from, Socket to, AtomicInteger directionsEnded) {
        try {
            to.shutdownOutput();
        } catch (IOException e) {
            reset(from);
            reset(to);
            return;
        }
        if (directionsEnded.incrementAndGet() == 2) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void reset(Socket socket) {
        open.remove(socket);
        try {
            socket.setSoLinger(true, 0); // close with RST, as a dropped connection does
        } catch (IOException e) {
            // closing anyway
        }
        closeQuietly(socket);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing more to do
        }
    }

    private static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
