package io.locktable.test;

/**
 * Starts dynalite on its own, for scripts such as the demo: {@code java -cp <lock-test and its dependencies>
 * io.locktable.test.DynaliteMain [--port N]}. Prints {@code DYNALITE_ENDPOINT=http://127.0.0.1:N} once it answers
 * and runs until the process is stopped.
 */
public final class DynaliteMain {

    private DynaliteMain() {}

    /**
     * Starts the server and waits.
     *
     * @param args {@code --port N} for a given port, nothing for a free one
     * @throws InterruptedException when the main thread is interrupted
     */
    public static void main(String[] args) throws InterruptedException {
        int port = 0;
        for (int i = 0; i < args.length; i++) {
            if ("--port".equals(args[i]) && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else {
                throw new IllegalArgumentException("unknown argument '" + args[i] + "'; usage: [--port N]");
            }
        }
        DynaliteServer server = DynaliteServer.start(port);
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "dynalite-stop"));
        System.out.println("DYNALITE_ENDPOINT=" + server.endpoint());
        System.out.flush();
        Thread.currentThread().join();
    }
}
