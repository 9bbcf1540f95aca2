package org.mooncake.osgi.store.rpc.impl;

import java.util.Set;

import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentDescriptor;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;

/** The bodies: a request names an operation and carries its arguments; a response its result or error. */
final class Messages {
    /**
     * Records travel as their components only; fields a newer peer adds are ignored, so the
     * protocol can grow within a version. A body that is CBOR {@code null} is malformed, like any
     * other that is not a message: it ends its connection instead of reaching the server as no
     * request at all. Fields whose absence or names an older peer would misread are handled by
     * {@link VersionedFields}.
     */
    static final ObjectMapper CBOR = new ObjectMapper(new CBORFactory())
            .setVisibility(PropertyAccessor.IS_GETTER, JsonAutoDetect.Visibility.NONE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .registerModule(new SimpleModule("mooncake-messages").setDeserializerModifier(new NullBodies()))
            .registerModule(new SimpleModule("mooncake-versioned-fields")
                    .setDeserializerModifier(new VersionedFields.Decoders())
                    .addSerializer(new VersionedFields.ResultWriter()))
            .addMixIn(ReplicaLocation.class, AbsentWhenNull.class)
            .addMixIn(SegmentDescriptor.class, AbsentWhenNull.class);

    /**
     * Optional components added later (a replica's grant, a segment's grant key) are left out
     * when null rather than sent as nulls: a frame without them is byte for byte what it was
     * before they existed.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private abstract static class AbsentWhenNull {
    }

    private Messages() {
    }

    /**
     * @param id         echoed by the response; requests on one connection may be answered out of order
     * @param op         an {@link MasterOps.Op} name, or {@code HELLO} first on every connection
     * @param deadlineMs the caller's wall-clock ms after which it has given up (0: none). Only older
     *                   clients send one: it is judged by the master's clock, so it fails every call of a
     *                   client whose clock runs behind
     * @param timeoutMs  how many ms the caller waits for the answer (0: no limit, or an older client), judged
     *                   by the server on its own monotonic clock from when it read the frame; left out when 0
     * @param args       the operation's arguments, positionally
     */
    record Request(long id, String op, long deadlineMs,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) long timeoutMs, JsonNode args) {

        /** A request of an older client: an absolute deadline, no relative timeout. */
        Request(long id, String op, long deadlineMs, JsonNode args) {
            this(id, op, deadlineMs, 0, args);
        }
    }

    /**
     * {@code code} 0 and a result, or an error code and message.
     *
     * @param serverTimeMs the master's wall clock when it answered (0: an older master, left out), so a
     *                     client can read the master's absolute times in its own clock
     * @param maxBatchKeys in the answer to {@code HELLO} only: the most keys one batch request may carry
     *                     (null elsewhere and from an older master, left out)
     */
    record Response(long id, int code, String message, JsonNode result,
            @JsonInclude(JsonInclude.Include.NON_DEFAULT) long serverTimeMs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer maxBatchKeys) {

        /** An answer without the master's time (an older master's), as tests and {@link #at} start from. */
        Response(long id, int code, String message, JsonNode result) {
            this(id, code, message, result, 0, null);
        }

        /** This answer as sent at {@code serverTimeMs} by the master's wall clock. */
        Response at(long serverTimeMs) {
            return new Response(id, code, message, result, serverTimeMs, maxBatchKeys);
        }

        /** This answer to a HELLO, telling the client the server's batch limit. */
        Response withMaxBatchKeys(int maxBatchKeys) {
            return new Response(id, code, message, result, serverTimeMs, maxBatchKeys);
        }

        /** This answer under another request id. */
        Response withId(long id) {
            return new Response(id, code, message, result, serverTimeMs, maxBatchKeys);
        }
    }

    /** Refuses a {@code null} where a whole request or response is read. */
    private static final class NullBodies extends BeanDeserializerModifier {
        private static final long serialVersionUID = 1L;
        private static final Set<Class<?>> BODIES = Set.of(Request.class, Response.class);

        @Override
        public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription bean,
                JsonDeserializer<?> deserializer) {
            return BODIES.contains(bean.getBeanClass()) ? new NotNull(deserializer) : deserializer;
        }
    }

    private static final class NotNull extends DelegatingDeserializer {
        private static final long serialVersionUID = 1L;

        NotNull(JsonDeserializer<?> delegate) {
            super(delegate);
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
            return new NotNull(delegate);
        }

        @Override
        public Object getNullValue(DeserializationContext ctxt) throws JsonMappingException {
            throw MismatchedInputException.from(ctxt.getParser(), handledType(), "a message body is null");
        }
    }
}
