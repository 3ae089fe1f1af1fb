package io.locktable.test;

/** What a DynamoDB-compatible engine can do beyond the basics, so tests that need it run only where it exists. */
public enum EngineCapability {
    /** {@code TransactWriteItems} and {@code TransactGetItems}. */
    TRANSACTIONS,
    /** {@code ReturnValuesOnConditionCheckFailure=ALL_OLD} returns the item with a condition failure. */
    RETURNS_ITEM_ON_CONDITION_FAILURE,
    /** {@code UpdateTimeToLive}. */
    TIME_TO_LIVE
}
