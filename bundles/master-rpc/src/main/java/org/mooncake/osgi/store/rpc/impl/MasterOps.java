package org.mooncake.osgi.store.rpc.impl;

import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.master.PutCompletion;
import org.mooncake.osgi.store.master.SegmentDescriptor;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;

/** Every master operation the protocol carries, and how the server runs it. */
final class MasterOps {
    private MasterOps() {
    }

    /** The most keys (or completions) one batch request may carry, unless the server is configured otherwise. */
    static final int DEFAULT_MAX_BATCH = 65_536;

    /**
     * Positional arguments, converted to the types an operation expects; a bad one is
     * INVALID_PARAMS: missing, null, of the wrong type, a list holding a null, or a list longer than
     * {@code maxBatch} (checked on the decoded tree, before the master does any work for it).
     */
    record Args(JsonNode array, int maxBatch) {
        Args(JsonNode array) {
            this(array, DEFAULT_MAX_BATCH);
        }

        <T> T get(int i, Class<T> type) {
            return convert(i, type, null);
        }

        <T> T get(int i, TypeReference<T> type) {
            return convert(i, null, type);
        }

        /** Argument {@code i}, or null when the caller sent fewer (an older client) or null. */
        <T> T optional(int i, Class<T> type) {
            return array == null || !array.isArray() || i >= array.size() || array.get(i).isNull() ? null
                    : convert(i, type, null);
        }

        private <T> T convert(int i, Class<T> type, TypeReference<T> ref) {
            if (array == null || !array.isArray() || i >= array.size()) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "argument " + i + " is missing");
            }
            JsonNode arg = array.get(i);
            if (arg.isNull()) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "argument " + i + " is null");
            }
            if (arg.isArray() && arg.size() > maxBatch) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "argument " + i + " holds " + arg.size()
                        + " entries; a batch holds at most " + maxBatch);
            }
            try {
                T value = type != null ? Messages.CBOR.treeToValue(arg, type) : Messages.CBOR.readerFor(ref).readValue(arg);
                if (value == null) { // e.g. an empty string where a Boolean goes: Jackson coerces it to null
                    throw new StoreException(ErrorCode.INVALID_PARAMS, "argument " + i + " is empty");
                }
                if (value instanceof List<?> list && list.stream().anyMatch(java.util.Objects::isNull)) {
                    throw new StoreException(ErrorCode.INVALID_PARAMS, "argument " + i + " holds a null");
                }
                return value;
            } catch (StoreException e) {
                throw e;
            } catch (Exception e) {
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                if (root instanceof StoreException se) {
                    throw se; // a record's own validation, e.g. a bad key
                }
                throw new StoreException(ErrorCode.INVALID_PARAMS, "argument " + i + " is malformed: " + root.getMessage());
            }
        }
    }

    interface Handler {
        Object run(MasterService m, Args a);
    }

    private static final TypeReference<List<ObjectKey>> KEYS = new TypeReference<>() {
    };
    private static final TypeReference<List<Long>> LONGS = new TypeReference<>() {
    };
    private static final TypeReference<List<PutCompletion>> COMPLETIONS = new TypeReference<>() {
    };

    enum Op {
        HEARTBEAT((m, a) -> m.heartbeat(a.get(0, String.class))),
        LEAVE((m, a) -> {
            m.leave(a.get(0, String.class));
            return null;
        }),
        MOUNT_SEGMENT((m, a) -> {
            m.mountSegment(a.get(0, SegmentDescriptor.class));
            return null;
        }),
        UPDATE_SEGMENT_ENDPOINTS((m, a) -> {
            m.updateSegmentEndpoints(a.get(0, SegmentDescriptor.class));
            return null;
        }),
        UNMOUNT_SEGMENT((m, a) -> {
            m.unmountSegment(a.get(0, String.class), a.get(1, String.class));
            return null;
        }),
        PUT_START((m, a) -> m.putStart(a.get(0, String.class), a.get(1, ObjectKey.class), a.get(2, Long.class),
                a.get(3, ReplicateConfig.class), a.get(4, Boolean.class))),
        PUT_END((m, a) -> {
            m.putEnd(a.get(0, String.class), a.get(1, ObjectKey.class), a.get(2, Long.class), a.get(3, Long.class),
                    a.optional(4, ChunkChecksums.class));
            return null;
        }),
        PUT_REVOKE((m, a) -> {
            m.putRevoke(a.get(0, String.class), a.get(1, ObjectKey.class), a.get(2, Long.class),
                    Boolean.TRUE.equals(a.optional(3, Boolean.class)));
            return null;
        }),
        GET_REPLICA_LIST((m, a) -> m.getReplicaList(a.get(0, ObjectKey.class))),
        EXISTS((m, a) -> m.exists(a.get(0, ObjectKey.class))),
        REMOVE((m, a) -> {
            m.remove(a.get(0, ObjectKey.class), a.get(1, Boolean.class));
            return null;
        }),
        REMOVE_BY_REGEX((m, a) -> m.removeByRegex(a.get(0, String.class), pattern(a.get(1, String.class)),
                a.get(2, Boolean.class))),
        REMOVE_ALL((m, a) -> m.removeAll(a.get(0, String.class), a.get(1, Boolean.class))),
        QUERY_KEY((m, a) -> m.queryKey(a.get(0, ObjectKey.class)).orElse(null)),
        STATS((m, a) -> m.stats()),
        SEGMENTS((m, a) -> m.segments()),
        PUT_START_BATCH((m, a) -> m.putStartBatch(a.get(0, String.class), a.get(1, KEYS), a.get(2, LONGS),
                a.get(3, ReplicateConfig.class), a.get(4, Boolean.class))),
        PUT_END_BATCH((m, a) -> m.putEndBatch(a.get(0, String.class), a.get(1, COMPLETIONS))),
        PUT_REVOKE_BATCH((m, a) -> m.putRevokeBatch(a.get(0, String.class), a.get(1, COMPLETIONS),
                Boolean.TRUE.equals(a.optional(2, Boolean.class)))),
        GET_REPLICA_LIST_BATCH((m, a) -> m.getReplicaListBatch(a.get(0, KEYS))),
        EXISTS_BATCH((m, a) -> m.existsBatch(a.get(0, KEYS))),
        LOOKUP_BATCH((m, a) -> m.lookupBatch(a.get(0, KEYS)));

        final Handler handler;

        Op(Handler handler) {
            this.handler = handler;
        }

        static Op named(String name) {
            try {
                return Op.valueOf(name);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new StoreException(ErrorCode.INVALID_PARAMS, "unknown operation " + name);
            }
        }
    }

    private static Pattern pattern(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException | NullPointerException e) {
            throw new StoreException(ErrorCode.INVALID_PARAMS, "bad regex: " + regex);
        }
    }
}
