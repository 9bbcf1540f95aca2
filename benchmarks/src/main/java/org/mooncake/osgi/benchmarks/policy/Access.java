package org.mooncake.osgi.benchmarks.policy;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/**
 * One operation of a request on an object. Most are reads ({@link Op#GET}): on a miss the reader
 * recomputes the object and writes it back. An access log adds {@link Op#PUT} (the writer stores a
 * new value: an overwrite replaces size, type, cost and group) and {@link Op#REMOVE} (the key is
 * gone and its bytes are freed). For a remove only the tenant and key mean anything.
 *
 * @param key         the object
 * @param type        what it holds
 * @param sizeBytes   its size
 * @param costMs      what a miss really costs to recompute (what savings are counted in)
 * @param hintMs      the cost hint the writer passes with the put (the cost, or a noisy estimate;
 *                    {@link Double#NaN}: none)
 * @param group       the session or conversation it belongs to; null for none
 * @param prefixIndex position of a KV block in its request's prefix chain; -1 for other objects
 * @param first       a read of a key that holds no value (never written, or removed since): a
 *                    compulsory miss
 * @param groupOnly   the writer's hint that only its group reads the object (a user's upload)
 * @param tenant      the key's tenant
 * @param op          read, put or remove
 */
public record Access(String key, ObjectDataType type, long sizeBytes, double costMs, double hintMs, String group,
        int prefixIndex, boolean first, boolean groupOnly, String tenant, Op op) {

    /** What an access does. */
    public enum Op {
        /** A read; a miss is recomputed and written back. */
        GET,
        /** A write of a new value, replacing any old one. */
        PUT,
        /** The key's value is dropped. */
        REMOVE
    }

    /** A read of the default tenant. */
    public Access(String key, ObjectDataType type, long sizeBytes, double costMs, double hintMs, String group,
            int prefixIndex, boolean first, boolean groupOnly) {
        this(key, type, sizeBytes, costMs, hintMs, group, prefixIndex, first, groupOnly, ObjectKey.DEFAULT_TENANT, Op.GET);
    }

    /** A read of the default tenant without the group-only hint. */
    public Access(String key, ObjectDataType type, long sizeBytes, double costMs, double hintMs, String group,
            int prefixIndex, boolean first) {
        this(key, type, sizeBytes, costMs, hintMs, group, prefixIndex, first, false);
    }

    /** Tenant and key as one string, the identity of the object in maps: keys hold no space, tenants no space. */
    public static String id(String tenant, String key) {
        return ObjectKey.DEFAULT_TENANT.equals(tenant) ? key : tenant + " " + key;
    }

    public String id() {
        return id(tenant, key);
    }

    public boolean isKv() {
        return type == ObjectDataType.KVCACHE;
    }

    public boolean isRead() {
        return op == Op.GET;
    }

    Access withFirst(boolean isFirst) {
        return new Access(key, type, sizeBytes, costMs, hintMs, group, prefixIndex, isFirst, groupOnly, tenant, op);
    }

    Access withGroupOnly(boolean only) {
        return new Access(key, type, sizeBytes, costMs, hintMs, group, prefixIndex, first, only, tenant, op);
    }

    Access withHint(double hint) {
        return new Access(key, type, sizeBytes, costMs, hint, group, prefixIndex, first, groupOnly, tenant, op);
    }
}
