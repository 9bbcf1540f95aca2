package org.mooncake.osgi.benchmarks.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;

/** The access-log schema (docs/access-log.md): what a line becomes, and each line the replay refuses, by number. */
class AccessLogTest {
    @TempDir
    Path dir;

    private Path log(String... lines) throws IOException {
        return Files.writeString(dir.resolve("log.jsonl"), String.join("\n", lines) + "\n");
    }

    private static final String PUT_A = "{\"time_ms\": 0, \"op\": \"put\", \"key\": \"a\", \"bytes\": 4096}";

    @Test
    void aLineIsAnOperationAndAGetTakesWhatItsKeyLastHad() throws IOException {
        Workload w = AccessLog.read(log(
                "{\"time_ms\": 10, \"op\": \"put\", \"tenant\": \"t1\", \"key\": \"img\", \"type\": \"HIDDEN_STATE\", "
                        + "\"bytes\": 8192, \"cost_ms\": 300, \"group\": \"s1\", \"group_only\": true}",
                "{\"time_ms\": 10.7, \"op\": \"get\", \"tenant\": \"t1\", \"key\": \"img\"}",
                "",
                "{\"time_ms\": 20, \"op\": \"get\", \"key\": \"kv\", \"type\": 1, \"bytes\": 1024}",
                "{\"time_ms\": 30, \"op\": \"remove\", \"tenant\": \"t1\", \"key\": \"img\"}",
                "{\"time_ms\": 40, \"op\": \"get\", \"tenant\": \"t1\", \"key\": \"img\"}",
                "{\"time_ms\": 50, \"op\": \"get\", \"key\": \"kv\"}"));

        assertEquals("log-log", w.name());
        assertEquals(List.of(10L, 20L, 30L, 40L, 50L), w.requests().stream().map(Request::timeMs).toList(),
                "lines of one millisecond are one request");
        Access put = w.requests().get(0).accesses().get(0);
        Access get = w.requests().get(0).accesses().get(1);
        assertEquals(new Access("img", ObjectDataType.HIDDEN_STATE, 8192, 300, 300, "s1", -1, false, true, "t1", Access.Op.PUT), put);
        assertEquals(new Access("img", ObjectDataType.HIDDEN_STATE, 8192, 300, 300, "s1", -1, false, true, "t1", Access.Op.GET), get,
                "the get took the put's fields");
        assertFalse(get.first(), "read after a put: a cache could hit it");

        Access kv = w.requests().get(1).accesses().getFirst();
        assertEquals(ObjectDataType.KVCACHE, kv.type(), "a type by its code");
        assertEquals(ObjectKey.DEFAULT_TENANT, kv.tenant());
        assertTrue(Double.isNaN(kv.hintMs()), "no cost_ms: the put passes no hint");
        assertEquals(AccessLog.UNIT_COST_MS, kv.costMs(), "and a miss counts one unit");
        assertTrue(kv.first());
        assertEquals(Access.Op.REMOVE, w.requests().get(2).accesses().getFirst().op());
        assertTrue(w.requests().get(3).accesses().getFirst().first(), "read after a remove: compulsory");
        assertFalse(w.requests().get(4).accesses().getFirst().first());
        assertEquals(8192, w.requests().get(3).accesses().getFirst().sizeBytes(), "its write-back stores the size it had");
        assertEquals(4, w.accessCount());
        assertEquals(6, w.operationCount());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not JSON            | {"time_ms": 1, "op": "get",                                     | :2: not JSON
            two objects         | {"time_ms": 1, "op": "put", "key": "b", "bytes": 1} {}            | :2: not JSON
            a field twice       | {"time_ms": 1, "op": "put", "key": "b", "key": "c", "bytes": 1}   | :2: not JSON
            not an object       | [1, 2]                                                             | :2: a line is one JSON object, was array
            unknown op          | {"time_ms": 1, "op": "read", "key": "b", "bytes": 1}              | :2: op must be get, put or remove, was "read"
            no op               | {"time_ms": 1, "key": "b", "bytes": 1}                            | :2: op must be get, put or remove, was missing
            no key              | {"time_ms": 1, "op": "get", "bytes": 1}                           | :2: key is required: a string, was missing
            a number as key     | {"time_ms": 1, "op": "get", "key": 7, "bytes": 1}                 | :2: key is required: a string, was 7
            a space in the key  | {"time_ms": 1, "op": "get", "key": "a b", "bytes": 1}             | :2: key has a control, whitespace or broken character at index 1
            negative bytes      | {"time_ms": 1, "op": "put", "key": "b", "bytes": -5}              | :2: bytes must be a whole number above 0, was -5
            zero bytes          | {"time_ms": 1, "op": "put", "key": "b", "bytes": 0}               | :2: bytes must be a whole number above 0, was 0
            fractional bytes    | {"time_ms": 1, "op": "put", "key": "b", "bytes": 1.5}             | :2: bytes must be a whole number above 0, was 1.5
            bytes as text       | {"time_ms": 1, "op": "put", "key": "b", "bytes": "1"}             | :2: bytes must be a whole number above 0, was "1"
            a put without bytes | {"time_ms": 1, "op": "put", "key": "b"}                           | :2: a put needs bytes
            an unsized get      | {"time_ms": 1, "op": "get", "key": "b"}                           | :2: a get of key 'b', which no earlier line sized, needs bytes
            negative time       | {"time_ms": -0.5, "op": "get", "key": "a"}                        | :2: time_ms is required: milliseconds, a number >= 0, was -0.5
            no time             | {"op": "get", "key": "a"}                                          | :2: time_ms is required: milliseconds, a number >= 0, was missing
            unknown data type   | {"time_ms": 1, "op": "put", "key": "b", "bytes": 1, "type": "PIXELS"} | :2: unknown data type "PIXELS" (a name or code of [UNKNOWN, KVCACHE
            unknown type code   | {"time_ms": 1, "op": "put", "key": "b", "bytes": 1, "type": 11}   | :2: unknown data type 11
            negative cost       | {"time_ms": 1, "op": "put", "key": "b", "bytes": 1, "cost_ms": -1} | :2: cost_ms must be a number of milliseconds >= 0, was -1
            group-only alone    | {"time_ms": 1, "op": "put", "key": "b", "bytes": 1, "group_only": true} | :2: group_only needs a group
            group-only as text  | {"time_ms": 1, "op": "put", "key": "b", "bytes": 1, "group": "g", "group_only": "yes"} | :2: group_only must be true or false, was "yes"
            a bad tenant        | {"time_ms": 1, "op": "get", "tenant": "a/b", "key": "a"}          | :2: tenant may hold only [A-Za-z0-9._-]: a/b
            a misspelt field    | {"time_ms": 1, "op": "put", "key": "b", "byte": 1}                | :2: unknown field 'byte' (the fields are [bytes, cost_ms, group
            """)
    void aLineTheReplayCannotTakeAsMeantIsRefusedByNumber(String what, String line, String message) throws IOException {
        Path file = log(PUT_A, line);
        String error = assertThrows(IOException.class, () -> AccessLog.read(file)).getMessage();
        assertTrue(error.startsWith(file + message.strip()), what + ": " + error);
    }

    @Test
    void timeGoingBackwardsIsRefusedNamingBothLines() throws IOException {
        Path file = log("{\"time_ms\": 200, \"op\": \"put\", \"key\": \"a\", \"bytes\": 1}", "",
                "{\"time_ms\": 100, \"op\": \"get\", \"key\": \"a\"}");
        assertEquals(file + ":3: time_ms 100 is before line 1's 200: the log must be in time order",
                assertThrows(IOException.class, () -> AccessLog.read(file)).getMessage());
    }

    @Test
    void anEmptyLogIsRefused() throws IOException {
        Path empty = Files.writeString(dir.resolve("empty.jsonl"), "");
        assertEquals(empty + ": no operations (the file is empty)",
                assertThrows(IOException.class, () -> AccessLog.read(empty)).getMessage());
        Path blank = Files.writeString(dir.resolve("blank.jsonl"), "\n  \n");
        assertEquals(blank + ": no operations (2 lines, all blank)",
                assertThrows(IOException.class, () -> AccessLog.read(blank)).getMessage());
    }

    @Test
    void theDocumentedExampleReads() throws IOException {
        Workload w = AccessLog.read(Path.of("../docs/examples/access-log.jsonl"));
        assertTrue(w.hasChanges());
        assertEquals(Long.valueOf(1), w.summary().get("removes"));
    }
}
