# Serves moto (DynamoDB and the other moto backends) for LockTable's tests: python3 server.py <port> [<host>]
#
# moto's backends are not thread-safe, so requests are processed one at a time: each request's body is read first,
# outside the lock (a client that stalls mid-request, as the network-fault tests make one do, holds up nobody),
# then moto answers it under one lock, and the answer is sent outside the lock again. Connections are served on
# threads of their own, with keep-alive.
#
# It stops when its standard input ends: the JVM that started it holds that pipe open, so the server dies with the
# JVM even when the JVM is killed; it also stops when its parent process changes (the parent died). Run by
# local-engine.sh (LOCKTABLE_MOTO_STANDALONE=1), it watches only its parent, as its standard input is a terminal or
# nothing.
# Exit code 3: moto or its server extras are missing (pip install 'moto[server]').
import io
import logging
import os
import sys
import threading
import time

MISSING = 3


def main():
    port = int(sys.argv[1])
    host = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    os.environ.setdefault("MOTO_PORT", str(port))
    try:
        import moto
        from moto.server import DomainDispatcherApplication, create_backend_app
        from werkzeug.serving import make_server
    except ImportError as e:
        print(
            "moto is missing for %s (Python %s): %s. Install it with: %s -m pip install 'moto[server]'"
            % (sys.executable, sys.version.split()[0], e, sys.executable),
            flush=True,
        )
        sys.exit(MISSING)

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request
    app = OneAtATime(DomainDispatcherApplication(create_backend_app))
    server = make_server(host, port, app, threaded=True)
    watch_parent()
    print("moto %s serving one request at a time at http://%s:%d" % (moto.__version__, host, port), flush=True)
    server.serve_forever()


class OneAtATime:
    """A WSGI application that lets the one it wraps process one request at a time."""

    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()

    def __call__(self, environ, start_response):
        environ["wsgi.input"] = io.BytesIO(read_body(environ))
        with self.lock:
            answer = self.app(environ, start_response)
            try:
                body = b"".join(answer)
            finally:
                if hasattr(answer, "close"):
                    answer.close()
        return [body]


def read_body(environ):
    stream = environ["wsgi.input"]
    length = environ.get("CONTENT_LENGTH")
    if length:
        return stream.read(int(length))
    if environ.get("wsgi.input_terminated"):
        return stream.read()
    return b""


def watch_parent():
    parent = os.getppid()

    def stdin_ended():
        while sys.stdin.buffer.read(4096):
            pass
        os._exit(0)

    def parent_changed():
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    if os.environ.get("LOCKTABLE_MOTO_STANDALONE") != "1":
        threading.Thread(target=stdin_ended, name="stdin-watch", daemon=True).start()
    threading.Thread(target=parent_changed, name="parent-watch", daemon=True).start()


if __name__ == "__main__":
    main()
