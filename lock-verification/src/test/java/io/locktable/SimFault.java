package io.locktable;

/** What the simulated network does to one request, as the seed chose. */
enum SimFault {
    /** Answered at once. */
    NONE,
    /** Failed before it reached the table: not applied, though the library cannot know that. */
    FAIL_BEFORE,
    /** Applied, and the answer lost (a timeout or a reset after the table served it). */
    LOST_AFTER,
    /** Applied, then a decorator of the client threw something that is not the SDK's. */
    NON_AWS_AFTER,
    /** Applied at once, answered late: the caller stands still while the world moves on. */
    LATE_ANSWER,
    /** Not applied yet: the client gave up, and the request reaches the table later. */
    LANDS_LATER,
    /** Applied twice, as an SDK retry of an attempt whose answer was lost does; the retry's answer is read. */
    DUPLICATE
}
