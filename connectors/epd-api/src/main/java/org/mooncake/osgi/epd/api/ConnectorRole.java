package org.mooncake.osgi.epd.api;

/**
 * What a connector does with the store: vLLM's {@code ec_producer / ec_consumer / ec_both} for
 * hidden states and {@code kv_producer / kv_consumer / kv_both} for KV blocks.
 */
public enum ConnectorRole {
    PRODUCER, CONSUMER, BOTH;

    public boolean saves() {
        return this != CONSUMER;
    }

    public boolean loads() {
        return this != PRODUCER;
    }

    /** From configuration: {@code producer}, {@code consumer} or {@code both}, any case, with or without an ec_/kv_ prefix. */
    public static ConnectorRole parse(String s) {
        String v = s == null ? "" : s.trim().toLowerCase(java.util.Locale.ROOT);
        v = v.startsWith("ec_") || v.startsWith("kv_") ? v.substring(3) : v;
        return switch (v) {
            case "producer" -> PRODUCER;
            case "consumer" -> CONSUMER;
            case "both" -> BOTH;
            default -> throw new IllegalArgumentException("role must be producer, consumer or both, was " + s);
        };
    }
}
