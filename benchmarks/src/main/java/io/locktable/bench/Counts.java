package io.locktable.bench;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * DynamoDB requests by operation.
 *
 * @param byOperation the number of requests of each operation, such as {@code GetItem}
 */
public record Counts(Map<String, Long> byOperation) {

    private static final Set<String> READS = Set.of("GetItem", "Query", "Scan", "BatchGetItem");

    /** Keeps an unmodifiable copy. */
    public Counts {
        byOperation = Map.copyOf(byOperation);
    }

    /**
     * All requests.
     *
     * @return the total
     */
    public long total() {
        return byOperation.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * The requests that read.
     *
     * @return reads
     */
    public long reads() {
        return byOperation.entrySet().stream()
                .filter(e -> READS.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /**
     * The requests that write (or describe: anything that is not a read).
     *
     * @return writes
     */
    public long writes() {
        return total() - reads();
    }

    /**
     * The requests of one operation.
     *
     * @param operation the operation
     * @return how many
     */
    public long of(String operation) {
        return byOperation.getOrDefault(operation, 0L);
    }

    /**
     * The counts minus an earlier snapshot.
     *
     * @param earlier the earlier snapshot
     * @return the difference
     */
    public Counts minus(Counts earlier) {
        Map<String, Long> diff = new TreeMap<>(byOperation);
        earlier.byOperation.forEach((op, n) -> diff.merge(op, -n, Long::sum));
        return new Counts(diff);
    }

    /**
     * The operations and counts divided by a number, as {@code GetItem 1, PutItem 1}.
     *
     * @param divisor what to divide by
     * @return the text
     */
    public String describePer(double divisor) {
        StringBuilder text = new StringBuilder();
        new TreeMap<>(byOperation).forEach((op, n) -> {
            if (n != 0) {
                text.append(text.isEmpty() ? "" : ", ").append(op).append(' ').append(Format.num(n / divisor));
            }
        });
        return text.isEmpty() ? "none" : text.toString();
    }
}
