package org.mooncake.osgi.store.rpc.impl;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;

/** The bodies: a request names an operation and carries its arguments; a response its result or error. */
final class Messages {
    /**
     * Records travel as their components only; fields a newer peer adds are ignored, so the
     * protocol can grow within a version.
     */
    static final ObjectMapper CBOR = new ObjectMapper(new CBORFactory())
            .setVisibility(PropertyAccessor.IS_GETTER, JsonAutoDetect.Visibility.NONE)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

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
}
