package org.mooncake.osgi.store.rpc.impl;

import java.util.Set;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
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
     * request at all.
     */
    static final ObjectMapper CBOR = new ObjectMapper(new CBORFactory())
            .setVisibility(PropertyAccessor.IS_GETTER, JsonAutoDetect.Visibility.NONE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .registerModule(new SimpleModule("mooncake-messages").setDeserializerModifier(new NullBodies()));

    private Messages() {
    }

    /**
     * @param id         echoed by the response; requests on one connection may be answered out of order
     * @param op         an {@link MasterOps.Op} name, or {@code HELLO} first on every connection
     * @param deadlineMs wall-clock ms after which the caller has given up (0: none)
     * @param args       the operation's arguments, positionally
     */
    record Request(long id, String op, long deadlineMs, JsonNode args) {
    }

    /** {@code code} 0 and a result, or an error code and message. */
    record Response(long id, int code, String message, JsonNode result) {
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
