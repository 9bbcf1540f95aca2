package org.mooncake.osgi.store.rpc.impl;

import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.CHECKSUM;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.CLIENT;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.INCARNATION;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.KEY;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.LEASE;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.MISSING;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.NOT_FOUND_MESSAGE;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.SEGMENT;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.SERVER_TIME_MS;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.SIZE;
import static org.mooncake.osgi.store.rpc.impl.ExampleMaster.TICKET;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ChunkChecksums;
import org.mooncake.osgi.store.master.ReadLease;

import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * The request/response pairs of {@code docs/protocol.md}, as Java values: frames
 * {@code master-NAME-request} and {@code master-NAME-response}, in the order they are sent on one
 * connection.
 */
final class MasterProtocolExamples {
    /** The budget the client gives every call (its {@code timeout.ms}, 5000 by default). */
    static final long TIMEOUT_MS = 5_000;

    /**
     * @param clientCall what a {@link RemoteMasterService} call sends this request, and what it returns
     *                   (null: no client call sends it, e.g. a deadline already passed)
     * @param clientResult what that call returns, or the {@link ErrorCode} it throws
     * @param serverCall what the master is called with once the server decoded the request (null: none)
     */
    record Example(String name, Messages.Request request, Messages.Response response,
            Function<RemoteMasterService, Object> clientCall, Object clientResult, ExampleMaster.Call serverCall) {

        String requestFrame() {
            return "master-" + name + "-request";
        }

        String responseFrame() {
            return "master-" + name + "-response";
        }
    }

    private MasterProtocolExamples() {
    }

    /** Arguments as the client sends them: each value as a CBOR tree, in order. */
    static ArrayNode args(Object... values) {
        ArrayNode a = Messages.CBOR.createArrayNode();
        for (Object v : values) {
            a.add(Messages.CBOR.valueToTree(v));
        }
        return a;
    }

    /** A request as the client sends it: its timeout, no wall-clock deadline. */
    static Messages.Request request(long id, String op, Object... args) {
        return new Messages.Request(id, op, 0, TIMEOUT_MS, args(args));
    }

    /** A result, answered at {@link ExampleMaster#SERVER_TIME_MS}. */
    static Messages.Response ok(long id, Object result) {
        return new Messages.Response(id, 0, null, Messages.CBOR.valueToTree(result)).at(SERVER_TIME_MS);
    }

    static Messages.Response error(long id, ErrorCode code, String message) {
        return new Messages.Response(id, code.code(), message, null).at(SERVER_TIME_MS);
    }

    private static final List<OpResult<ReadLease>> BATCH_RESULTS = List.of(OpResult.ok(KEY.key(), LEASE),
            OpResult.failed(MISSING.key(), new StoreException(ErrorCode.OBJECT_NOT_FOUND, NOT_FOUND_MESSAGE)));

    private static ExampleMaster.Call call(String method, Object... args) {
        return new ExampleMaster.Call(method, Arrays.asList(args));
    }

    /** One connection's exchange, HELLO first. */
    static final List<Example> CONNECTION = List.of(
            new Example("hello", request(1, "HELLO", Frames.PROTOCOL_VERSION),
                    ok(1, Frames.PROTOCOL_VERSION).withMaxBatchKeys(MasterOps.DEFAULT_MAX_BATCH), null, null, null),
            new Example("heartbeat", request(2, "HEARTBEAT", CLIENT),
                    ok(2, INCARNATION), r -> r.heartbeat(CLIENT), INCARNATION, call("heartbeat", CLIENT)),
            new Example("mount-segment", request(3, "MOUNT_SEGMENT", SEGMENT), ok(3, null), r -> {
                r.mountSegment(SEGMENT);
                return null;
            }, null, call("mountSegment", SEGMENT)),
            new Example("put-start", request(4, "PUT_START", CLIENT, KEY, SIZE, ReplicateConfig.DEFAULT, false),
                    ok(4, TICKET), r -> r.putStart(CLIENT, KEY, SIZE, ReplicateConfig.DEFAULT, false), TICKET,
                    call("putStart", CLIENT, KEY, SIZE, ReplicateConfig.DEFAULT, false)),
            new Example("put-end", request(5, "PUT_END", CLIENT, KEY, TICKET.putId(), CHECKSUM), ok(5, null), r -> {
                r.putEnd(CLIENT, KEY, TICKET.putId(), CHECKSUM);
                return null;
            }, null, call("putEnd", CLIENT, KEY, TICKET.putId(), CHECKSUM, (ChunkChecksums) null)),
            new Example("get-replica-list", request(6, "GET_REPLICA_LIST", KEY),
                    ok(6, LEASE), r -> r.getReplicaList(KEY), LEASE, call("getReplicaList", KEY)),
            new Example("get-replica-list-missing", request(7, "GET_REPLICA_LIST", MISSING),
                    error(7, ErrorCode.OBJECT_NOT_FOUND, NOT_FOUND_MESSAGE), r -> r.getReplicaList(MISSING),
                    ErrorCode.OBJECT_NOT_FOUND, call("getReplicaList", MISSING)),
            new Example("deadline-passed", new Messages.Request(8, "EXISTS", 1, args(KEY)),
                    error(8, ErrorCode.RPC_FAIL, "deadline passed before the master got to it"), null, null, null),
            new Example("put-revoke-in-doubt", request(9, "PUT_REVOKE", CLIENT, KEY, TICKET.putId(), true),
                    ok(9, null), r -> {
                        r.putRevoke(CLIENT, KEY, TICKET.putId(), true);
                        return null;
                    }, null, call("putRevoke", CLIENT, KEY, TICKET.putId(), true)),
            new Example("get-replica-list-batch", request(10, "GET_REPLICA_LIST_BATCH", List.of(KEY, MISSING)),
                    ok(10, BATCH_RESULTS), r -> r.getReplicaListBatch(List.of(KEY, MISSING)), BATCH_RESULTS,
                    call("getReplicaListBatch", List.of(KEY, MISSING))));

    /** A HELLO of a version the master does not serve: refused, then the connection is closed. */
    static final Example REFUSED_HELLO = new Example("hello-refused", request(1, "HELLO", 1),
            error(1, ErrorCode.INVALID_VERSION, "protocol version 1 is not served; this master speaks "
                    + Frames.OLDEST_SERVED_VERSION + " to " + Frames.PROTOCOL_VERSION),
            null, null, null);

    static List<Example> all() {
        return java.util.stream.Stream.concat(CONNECTION.stream(), java.util.stream.Stream.of(REFUSED_HELLO)).toList();
    }

    /** A message encoded and framed, as the client and the server send it. */
    static byte[] frame(Object message) {
        try {
            return frameOfBody(Messages.CBOR.writeValueAsBytes(message));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A body in its frame, as {@link Frames#write} sends it. */
    static byte[] frameOfBody(byte[] body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Frames.write(new DataOutputStream(bytes), body);
        return bytes.toByteArray();
    }
}
