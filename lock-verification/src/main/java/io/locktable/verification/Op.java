package io.locktable.verification;

/**
 * One event of a workload's history, as Jepsen records them: a client invokes an operation, and it completes as
 * {@code OK} (acknowledged), {@code FAIL} (definitely not applied) or {@code INFO} (unknown: it may have applied).
 *
 * @param process the client
 * @param type what happened
 * @param element the element the operation adds
 * @param token the fencing token of the lease it ran under
 * @param atNanos when, on {@code System.nanoTime()}
 * @param note why, for a failure or an unknown outcome
 */
public record Op(int process, Type type, long element, long token, long atNanos, String note) {

    /** The kinds of event. */
    public enum Type {
        /** The operation starts. */
        INVOKE,
        /** The operation was acknowledged: its element must be in the final read. */
        OK,
        /** The operation was refused: its element was not written. */
        FAIL,
        /** The outcome is unknown: its element may or may not be there. */
        INFO
    }

    /** @return this event as one line of JSON */
    String toJson() {
        return "{\"process\":" + process + ",\"type\":\"" + type + "\",\"element\":" + element + ",\"token\":" + token
                + ",\"atNanos\":" + atNanos + ",\"note\":\""
                + note.replace("\\", "\\\\").replace("\"", "'") + "\"}";
    }
}
