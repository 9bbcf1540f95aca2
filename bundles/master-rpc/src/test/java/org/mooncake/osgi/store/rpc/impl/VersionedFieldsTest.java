package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;

/** Fields an older or newer peer could misread: a missing cost hint, a batch error this side does not know. */
@Timeout(30)
class VersionedFieldsTest {

    private static ObjectNode configWithout(String field) {
        ObjectNode config = Messages.CBOR.valueToTree(ReplicateConfig.builder().replicaCount(2).build());
        config.remove(field);
        return config;
    }

    private static ReplicateConfig decode(JsonNode config) throws IOException {
        return Messages.CBOR.readValue(Messages.CBOR.writeValueAsBytes(config), ReplicateConfig.class);
    }

    /** A missing recomputeCostMs is no cost hint, not a cost of 0 (which a cost-aware policy reads as a free miss). */
    @Test
    void aMissingOrNullCostIsUnknownNotZero() throws IOException {
        ReplicateConfig missing = decode(configWithout(VersionedFields.COST));
        assertFalse(missing.hasCostHint(), "missing: " + missing.recomputeCostMs());
        assertEquals(2, missing.replicaCount(), "the other fields are read as sent");
        assertFalse(decode(configWithout(VersionedFields.COST).putNull(VersionedFields.COST)).hasCostHint(), "null");
        assertEquals(0.0, decode(configWithout(VersionedFields.COST).put(VersionedFields.COST, 0.0)).recomputeCostMs());
        assertEquals(12.5, decode(configWithout(VersionedFields.COST).put(VersionedFields.COST, 12.5)).recomputeCostMs());
    }

    /** Through a server: what the master is called with when a client leaves the cost out. */
    @Test
    void theMasterIsToldNoCostWhenAClientLeavesItOut() throws IOException {
        ExampleMaster master = new ExampleMaster();
        try (MasterRpcServer server = new MasterRpcServer(ServerConfig.plain(0, 1 << 20), master);
                RpcConnection c = new RpcConnection(new InetSocketAddress("127.0.0.1", server.port()), 5_000, 1 << 20)) {
            assertEquals(0, c.call("HELLO", Messages.CBOR.createArrayNode().add(Frames.PROTOCOL_VERSION), 5_000).code());
            ArrayNode args = MasterProtocolExamples.args(ExampleMaster.CLIENT, ExampleMaster.KEY, 4096L);
            args.add(configWithout(VersionedFields.COST)).add(false);
            assertEquals(0, c.call("PUT_START", args, 5_000).code());
            ReplicateConfig received = (ReplicateConfig) master.calls().getLast().args().get(3);
            assertFalse(received.hasCostHint(), "the master got cost " + received.recomputeCostMs());
        }
    }

    @Test
    void aBatchResultCarriesItsErrorByNameAndByCode() throws IOException {
        JsonNode ok = Messages.CBOR.valueToTree(OpResult.ok("k1", true));
        assertEquals(List.of("key", "value", "error", "code", "message"), fieldNames(ok));
        assertEquals("OK", ok.get("error").asText());
        assertEquals(0, ok.get("code").asInt());
        JsonNode failed = Messages.CBOR.valueToTree(new OpResult<>("k2", null, ErrorCode.OBJECT_NOT_FOUND, "gone"));
        assertEquals("OBJECT_NOT_FOUND", failed.get("error").asText());
        assertEquals(-704, failed.get("code").asInt());
        // a reader of before the code (plain records, unknown fields ignored) reads it as before
        ObjectMapper older = new ObjectMapper(new CBORFactory())
                .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
        assertEquals(new OpResult<>("k2", null, ErrorCode.OBJECT_NOT_FOUND, "gone"),
                older.readValue(Messages.CBOR.writeValueAsBytes(failed), OpResult.class));
    }

    @Test
    void anUnknownCodeOrNameFailsItsKeyOnlyAndTheCodeWinsOverTheName() throws IOException {
        assertEquals(new OpResult<>("k", null, ErrorCode.OBJECT_NOT_FOUND, "gone"),
                read(result("k", "SOME_NEWER_NAME", -704, "gone")), "a known code, a name this side lacks");
        OpResult<?> unknownCode = read(result("k", "SOME_NEWER_NAME", -2999, "why"));
        assertEquals(ErrorCode.INTERNAL_ERROR, unknownCode.error());
        assertTrue(unknownCode.message().contains("-2999") && unknownCode.message().contains("why"), unknownCode.message());
        OpResult<?> unknownName = read(result("k", "SOME_NEWER_NAME", null, "why"));
        assertEquals(ErrorCode.INTERNAL_ERROR, unknownName.error(), "an older master's unknown name");
        assertTrue(unknownName.message().contains("SOME_NEWER_NAME"), unknownName.message());
        assertEquals(new OpResult<>("k", null, ErrorCode.INVALID_WRITE, "w"), read(result("k", "INVALID_WRITE", null, "w")),
                "an older master's known name");
    }

    /** Before, one key's unknown error name failed the whole batch with RPC_FAIL ("malformed"). */
    @Test
    void aBatchWithOneUnknownErrorFailsThatKeyOnly() throws IOException {
        try (StandInMaster newer = new StandInMaster(r -> {
            if (r.op().equals("HELLO")) {
                return StandInMaster.olderHello(r);
            }
            ArrayNode results = Messages.CBOR.createArrayNode();
            results.add(Messages.CBOR.valueToTree(OpResult.ok("k0", true)));
            results.add(result("k1", "SOME_NEWER_NAME", -2999, "a newer refusal"));
            results.add(Messages.CBOR.valueToTree(OpResult.ok("k2", false)));
            return new Messages.Response(r.id(), 0, null, results);
        }); RemoteMasterService client = new RemoteMasterService(newer.address(), 5_000, 1 << 20)) {
            List<OpResult<Boolean>> results = client.existsBatch(
                    List.of(ObjectKey.of("k0"), ObjectKey.of("k1"), ObjectKey.of("k2")));
            assertEquals(List.of(ErrorCode.OK, ErrorCode.INTERNAL_ERROR, ErrorCode.OK),
                    results.stream().map(OpResult::error).toList());
            assertEquals(false, results.get(2).value());
        }
    }

    private static ObjectNode result(String key, String name, Integer code, String message) {
        ObjectNode r = Messages.CBOR.createObjectNode().put("key", key).putNull("value").put("error", name);
        if (code != null) {
            r.put("code", code);
        }
        return r.put("message", message);
    }

    private static OpResult<?> read(JsonNode result) throws IOException {
        return Messages.CBOR.readValue(Messages.CBOR.writeValueAsBytes(result), OpResult.class);
    }

    private static List<String> fieldNames(JsonNode map) {
        List<String> names = new ArrayList<>();
        map.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
