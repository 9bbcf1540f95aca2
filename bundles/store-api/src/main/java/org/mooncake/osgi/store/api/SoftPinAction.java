package org.mooncake.osgi.store.api;

/** What a write does to an object's soft pin. */
public enum SoftPinAction {
    /** Keep the pin the previous version had (none for a new object). */
    PRESERVE,
    /** Pin softly: evicted only in the second eviction pass, until the pin's deadline. */
    ENABLE,
    /** Clear any pin. */
    DISABLE
}
