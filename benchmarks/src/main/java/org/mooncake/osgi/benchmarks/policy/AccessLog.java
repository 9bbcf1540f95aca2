package org.mooncake.osgi.benchmarks.policy;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Reads an operator's access log (JSONL, one operation a line; the schema is docs/access-log.md)
 * as a workload: {@code get} lines are reads (a miss is written back), {@code put} lines store a
 * new value, {@code remove} lines drop the key. Lines of the same millisecond form one request.
 * A get without a size, type, cost or group takes those the key last had in the log. Any line
 * the replay could not take as meant is refused with its line number.
 */
public final class AccessLog {
    /** The fields a line may have. */
    static final Set<String> FIELDS = Set.of("time_ms", "op", "tenant", "key", "type", "bytes", "cost_ms", "group",
            "group_only");
    /** What a miss of an object without {@code cost_ms} counts: one unit, so that saving reads as a hit ratio. */
    static final double UNIT_COST_MS = 1;

    /** What the log said last about a key: a get without these fields takes them from here. */
    private record Known(ObjectDataType type, long bytes, double cost, double hint, String group, boolean groupOnly) {
    }

    private AccessLog() {
    }

    /** The workload of the log at {@code file}; an {@link IOException} names the file and line of what is wrong. */
    public static Workload read(Path file) throws IOException {
        // a line is one object: text after it, or a field given twice, is a broken line, not ignored
        ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        Map<String, Known> known = new HashMap<>();
        List<Request> requests = new ArrayList<>();
        List<Access> current = new ArrayList<>();
        long currentMs = Long.MIN_VALUE;
        int currentLine = 0;
        int lineNo = 0;
        try (BufferedReader in = Files.newBufferedReader(file)) {
            for (String line; (line = in.readLine()) != null;) {
                lineNo++;
                if (line.isBlank()) {
                    continue;
                }
                String at = file + ":" + lineNo + ": ";
                JsonNode n;
                try {
                    n = json.readTree(line);
                } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                    throw new IOException(at + "not JSON: " + e.getOriginalMessage(), e);
                }
                long timeMs;
                Access a;
                try {
                    timeMs = time(n);
                    a = access(n, known);
                } catch (IllegalArgumentException | StoreException e) {
                    throw new IOException(at + (e instanceof StoreException s ? s.detail() : e.getMessage()), e);
                }
                if (timeMs < currentMs) {
                    throw new IOException(at + "time_ms " + timeMs + " is before line " + currentLine + "'s " + currentMs
                            + ": the log must be in time order");
                }
                if (timeMs != currentMs && !current.isEmpty()) {
                    requests.add(new Request(currentMs, current));
                    current = new ArrayList<>();
                }
                currentMs = timeMs;
                currentLine = lineNo;
                current.add(a);
            }
        }
        if (!current.isEmpty()) {
            requests.add(new Request(currentMs, current));
        }
        if (requests.isEmpty()) {
            throw new IOException(file + ": no operations (" + (lineNo == 0 ? "the file is empty" : lineNo + " lines, all blank") + ")");
        }
        return Workload.of("log-" + file.getFileName().toString().replaceFirst("\\.jsonl$", ""), requests);
    }

    private static long time(JsonNode n) {
        if (!n.isObject()) {
            throw new IllegalArgumentException("a line is one JSON object, was " + n.getNodeType().name().toLowerCase(Locale.ROOT));
        }
        for (var it = n.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                throw new IllegalArgumentException("unknown field '" + f + "' (the fields are " + new java.util.TreeSet<>(FIELDS) + ")");
            }
        }
        JsonNode t = n.get("time_ms");
        if (t == null || !t.isNumber() || !(t.asDouble() >= 0) || Double.isInfinite(t.asDouble())) {
            throw new IllegalArgumentException("time_ms is required: milliseconds, a number >= 0" + was(t));
        }
        return (long) Math.floor(t.asDouble());
    }

    private static Access access(JsonNode n, Map<String, Known> known) {
        JsonNode opNode = n.get("op");
        Access.Op op = switch (opNode == null || !opNode.isTextual() ? "" : opNode.asText()) {
            case "get" -> Access.Op.GET;
            case "put" -> Access.Op.PUT;
            case "remove" -> Access.Op.REMOVE;
            default -> throw new IllegalArgumentException("op must be get, put or remove" + was(opNode));
        };
        String tenant = n.has("tenant") ? text(n, "tenant") : ObjectKey.DEFAULT_TENANT;
        ObjectKey.validateTenant(tenant);
        JsonNode keyNode = n.get("key");
        if (keyNode == null || !keyNode.isTextual()) {
            throw new IllegalArgumentException("key is required: a string" + was(keyNode));
        }
        String key = keyNode.asText();
        ObjectKey.validateKey(key);
        String id = Access.id(tenant, key);
        if (op == Access.Op.REMOVE) {
            return new Access(key, ObjectDataType.GENERAL, 0, 0, Double.NaN, null, -1, false, false, tenant, op);
        }
        Known before = op == Access.Op.GET ? known.get(id) : null;
        ObjectDataType type = n.has("type") ? type(n.get("type")) : before != null ? before.type() : ObjectDataType.GENERAL;
        long bytes;
        if (n.has("bytes")) {
            bytes = bytes(n.get("bytes"));
        } else if (before != null) {
            bytes = before.bytes();
        } else {
            throw new IllegalArgumentException(op == Access.Op.PUT ? "a put needs bytes"
                    : "a get of key '" + key + "', which no earlier line sized, needs bytes (what its write-back stores)");
        }
        double hint;
        double cost;
        if (n.has("cost_ms")) {
            JsonNode c = n.get("cost_ms");
            if (!c.isNumber() || !(c.asDouble() >= 0) || Double.isInfinite(c.asDouble())) {
                throw new IllegalArgumentException("cost_ms must be a number of milliseconds >= 0" + was(c));
            }
            hint = c.asDouble();
            cost = hint;
        } else {
            hint = before != null ? before.hint() : Double.NaN;
            cost = before != null ? before.cost() : UNIT_COST_MS;
        }
        String group = n.has("group") ? text(n, "group") : before != null ? before.group() : null;
        if (group != null && (group.isEmpty() || group.length() > ReplicateConfig.MAX_GROUP_ID_CHARS)) {
            throw new IllegalArgumentException("group must have 1 to " + ReplicateConfig.MAX_GROUP_ID_CHARS + " characters");
        }
        boolean groupOnly;
        if (n.has("group_only")) {
            if (!n.get("group_only").isBoolean()) {
                throw new IllegalArgumentException("group_only must be true or false" + was(n.get("group_only")));
            }
            groupOnly = n.get("group_only").asBoolean();
        } else {
            groupOnly = before != null && before.groupOnly();
        }
        if (groupOnly && group == null) {
            throw new IllegalArgumentException("group_only needs a group");
        }
        known.put(id, new Known(type, bytes, cost, hint, group, groupOnly));
        return new Access(key, type, bytes, cost, hint, group, -1, false, groupOnly, tenant, op);
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        if (!v.isTextual()) {
            throw new IllegalArgumentException(field + " must be a string" + was(v));
        }
        return v.asText();
    }

    private static ObjectDataType type(JsonNode t) {
        try {
            if (t.isTextual() || t.isIntegralNumber()) {
                return ObjectDataType.parse(t.asText());
            }
        } catch (StoreException unknown) {
            // named below with the known types
        }
        throw new IllegalArgumentException("unknown data type " + t + " (a name or code of "
                + java.util.Arrays.toString(ObjectDataType.values()) + ")");
    }

    private static long bytes(JsonNode b) {
        if (!b.isNumber() || !b.canConvertToExactIntegral() || b.asDouble() < 1 || b.asDouble() > Long.MAX_VALUE) {
            throw new IllegalArgumentException("bytes must be a whole number above 0" + was(b));
        }
        return b.asLong();
    }

    private static String was(JsonNode v) {
        return v == null ? ", was missing" : ", was " + v;
    }
}
