package io.locktable.bench;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullResponse;
import software.amazon.awssdk.http.SdkHttpResponse;

/**
 * An HTTP client for the SDK's {@code DynamoDbClient} that answers from memory: no engine, no socket. It answers each
 * request by its {@code X-Amz-Target} with a fixed JSON body, reading nothing of the request but, for an
 * {@code UpdateItem}, whether it asks for {@code "ReturnValues":"ALL_NEW"} (a byte scan). So a benchmark over it
 * measures what the library and the SDK spend on the caller's thread, and nothing of the engine's or the network's.
 *
 * <p>Two worlds: a {@linkplain #free() free lock} (every write succeeds: {@code GetItem} finds no item, an acquire's
 * {@code UpdateItem ... ALL_NEW} returns a granted LockTable lock item whose fence rises on every grant, every other
 * write answers {@code {}}) and a lock {@linkplain #heldForLockTable() held by another} (a {@code GetItem} finds the
 * holder's item, with a new record version on every read, as a renewing holder shows it; every write is refused with
 * DynamoDB's {@code ConditionalCheckFailedException} carrying the item, as {@code ALL_OLD} asks). The held item is
 * written in each library's own attributes ({@link #heldForLockTable()}, {@link #heldForPeer()}).
 */
final class CannedHttpClient implements SdkHttpClient {

    /** The operations answered, in the order of {@link #counts()}. */
    static final String[] OPERATIONS = {"GetItem", "PutItem", "UpdateItem", "DeleteItem"};

    private static final String TARGET_PREFIX = "DynamoDB_20120810.";
    private static final byte[] ALL_NEW = ascii("\"ReturnValues\":\"ALL_NEW\"");
    private static final byte[] EMPTY = ascii("{}");
    private static final String FAILED =
            "{\"__type\":\"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException\","
                    + "\"message\":\"The conditional request failed\",\"Item\":";

    private static final ThreadLocal<byte[]> BUFFER = ThreadLocal.withInitial(() -> new byte[2048]);

    private static final SdkHttpResponse OK = response(200);
    private static final SdkHttpResponse BAD_REQUEST = response(400);

    private enum World {
        FREE,
        HELD_LOCKTABLE,
        HELD_PEER
    }

    private final World world;
    /** The fence of the next grant (LockTable's acquire) and the record version of the next read of a held lock. */
    private final AtomicLong sequence = new AtomicLong(100);

    private final AtomicLong[] counts = {new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong()};

    private CannedHttpClient(World world) {
        this.world = world;
    }

    /** Every lock is free: every write succeeds. */
    static CannedHttpClient free() {
        return new CannedHttpClient(World.FREE);
    }

    /** Every lock is held by another LockTable, which renews it between any two reads. */
    static CannedHttpClient heldForLockTable() {
        return new CannedHttpClient(World.HELD_LOCKTABLE);
    }

    /** Every lock is held by another Lock Client, which heartbeats it between any two reads. */
    static CannedHttpClient heldForPeer() {
        return new CannedHttpClient(World.HELD_PEER);
    }

    /** The requests answered so far, by operation ({@link #OPERATIONS}); anything else throws. */
    Map<String, Long> counts() {
        Map<String, Long> all = new TreeMap<>();
        for (int i = 0; i < OPERATIONS.length; i++) {
            all.put(OPERATIONS[i], counts[i].get());
        }
        return all;
    }

    /** Sets {@link #counts()} back to zero. */
    void resetCounts() {
        for (AtomicLong count : counts) {
            count.set(0);
        }
    }

    @Override
    public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
        String target = request.httpRequest()
                .firstMatchingHeader("X-Amz-Target")
                .orElseThrow(() -> new IllegalArgumentException("no X-Amz-Target: " + request.httpRequest()));
        String operation = target.startsWith(TARGET_PREFIX) ? target.substring(TARGET_PREFIX.length()) : target;
        HttpExecuteResponse response = switch (operation) {
            case "GetItem" -> answer(0, world == World.FREE ? ok(EMPTY) : ok(item("{\"Item\":", "}")));
            case "PutItem" -> answer(1, world == World.FREE ? ok(EMPTY) : refused());
            case "UpdateItem" -> answer(2, updateItem(request));
            case "DeleteItem" -> answer(3, world == World.FREE ? ok(EMPTY) : refused());
            default -> throw new IllegalArgumentException("the canned client does not answer " + target);
        };
        return new ExecutableHttpRequest() {
            @Override
            public HttpExecuteResponse call() {
                return response;
            }

            @Override
            public void abort() {}
        };
    }

    private HttpExecuteResponse answer(int operation, HttpExecuteResponse response) {
        counts[operation].incrementAndGet();
        return response;
    }

    private HttpExecuteResponse updateItem(HttpExecuteRequest request) {
        if (world != World.FREE) {
            return refused();
        }
        if (!asksAllNew(request.contentStreamProvider().orElse(null))) {
            return ok(EMPTY); // a release, a renewal, a heartbeat
        }
        // LockTable's acquire: the item as it wrote it, with a fence above every earlier grant
        return ok(ascii("{\"Attributes\":{\"pk\":{\"S\":\"LOCK#canned\"},\"_type\":{\"S\":\"LOCK\"},"
                + "\"owner\":{\"S\":\"canned-owner\"},\"rvn\":{\"S\":\"canned-rvn\"},"
                + "\"fence\":{\"N\":\"" + sequence.incrementAndGet() + "\"},\"leaseMs\":{\"N\":\"20000\"}}}"));
    }

    private HttpExecuteResponse refused() {
        return body(BAD_REQUEST, item(FAILED, "}"));
    }

    /** The holder's item, in the library's attributes, with a record version no earlier read showed. */
    private byte[] item(String before, String after) {
        long version = sequence.incrementAndGet();
        String item = world == World.HELD_PEER
                ? "{\"key\":{\"S\":\"canned\"},\"ownerName\":{\"S\":\"another-host\"},"
                        + "\"leaseDuration\":{\"S\":\"20000\"},\"recordVersionNumber\":{\"S\":\"rvn-" + version + "\"}}"
                : "{\"pk\":{\"S\":\"LOCK#canned\"},\"_type\":{\"S\":\"LOCK\"},\"owner\":{\"S\":\"another-table.1\"},"
                        + "\"rvn\":{\"S\":\"rvn-" + version
                        + "\"},\"fence\":{\"N\":\"7\"},\"leaseMs\":{\"N\":\"20000\"}}";
        return ascii(before + item + after);
    }

    private static HttpExecuteResponse ok(byte[] body) {
        return body(OK, body);
    }

    /**
     * Whether the request's body holds {@code "ReturnValues":"ALL_NEW"}: a scan of its bytes through a buffer of the
     * thread's, no parsing and no allocation but the stream's.
     */
    private static boolean asksAllNew(ContentStreamProvider body) {
        if (body == null) {
            return false;
        }
        byte[] buffer = BUFFER.get();
        try (InputStream in = body.newStream()) {
            int matched = 0;
            for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
                for (int i = 0; i < n; i++) {
                    byte b = buffer[i];
                    // the pattern's first byte, a quote, never follows a partial match inside a JSON document
                    matched = b == ALL_NEW[matched] ? matched + 1 : b == ALL_NEW[0] ? 1 : 0;
                    if (matched == ALL_NEW.length) {
                        return true;
                    }
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static SdkHttpResponse response(int status) {
        return SdkHttpFullResponse.builder()
                .statusCode(status)
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("x-amzn-RequestId", "canned")
                .build();
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** One answer: the shared status line and headers, and a stream over the body. */
    private static HttpExecuteResponse body(SdkHttpResponse head, byte[] body) {
        return HttpExecuteResponse.builder()
                .response(head)
                .responseBody(AbortableInputStream.create(new ByteArrayInputStream(body)))
                .build();
    }

    @Override
    public String clientName() {
        return "Canned";
    }

    @Override
    public void close() {}
}
