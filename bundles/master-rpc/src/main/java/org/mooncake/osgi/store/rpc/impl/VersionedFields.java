package org.mooncake.osgi.store.rpc.impl;

import java.io.IOException;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.OpResult;
import org.mooncake.osgi.store.api.ReplicateConfig;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

/**
 * Fields whose meaning a peer of another version could get wrong, adjusted on the decoded map
 * before the record is built, and written so that both older and newer peers read them right:
 * <ul>
 * <li>a {@link ReplicateConfig} without {@code recomputeCostMs} (or with null) has no cost hint
 * (NaN), not a cost of 0, which would tell a cost-aware eviction policy that a miss is free;</li>
 * <li>an {@link OpResult} carries its error as the name (what older peers read) and as the
 * numeric {@code code}; a reader takes the code when there is one, and a code or name it does not
 * know fails that key with INTERNAL_ERROR naming it, never the whole batch.</li>
 * </ul>
 */
final class VersionedFields {
    static final String COST = "recomputeCostMs";

    private VersionedFields() {
    }

    /** Wraps the decoders of the records above. */
    static final class Decoders extends BeanDeserializerModifier {
        private static final long serialVersionUID = 1L;

        @Override
        public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription bean,
                JsonDeserializer<?> deserializer) {
            Class<?> type = bean.getBeanClass();
            if (type == ReplicateConfig.class) {
                return new Rewrite(deserializer, Fix.COST_HINT);
            }
            if (type == OpResult.class) {
                return new Rewrite(deserializer, Fix.ERROR_CODE);
            }
            return deserializer;
        }
    }

    private enum Fix {
        COST_HINT {
            @Override
            void apply(ObjectNode map) {
                JsonNode cost = map.get(COST);
                if (cost == null || cost.isNull()) {
                    map.put(COST, Double.NaN);
                }
            }
        },
        ERROR_CODE {
            @Override
            void apply(ObjectNode map) {
                JsonNode code = map.get("code");
                JsonNode name = map.get("error");
                String message = map.path("message").isTextual() ? map.get("message").asText() : null;
                if (code != null && code.canConvertToInt()) {
                    if (ErrorCode.isKnown(code.intValue())) {
                        map.put("error", ErrorCode.ofCode(code.intValue()).name());
                    } else {
                        unknown(map, "error code " + code.intValue(), message);
                    }
                } else if (name != null && name.isTextual() && !isName(name.asText())) {
                    unknown(map, "error " + name.asText(), message);
                }
            }

            private static boolean isName(String name) {
                try {
                    ErrorCode.valueOf(name);
                    return true;
                } catch (IllegalArgumentException e) {
                    return false;
                }
            }

            private static void unknown(ObjectNode map, String what, String message) {
                map.put("error", ErrorCode.INTERNAL_ERROR.name());
                map.put("message", "the master answered " + what + ", unknown to this client: " + message);
            }
        };

        abstract void apply(ObjectNode map);
    }

    /** Reads the map, applies its fix, and builds the record from the result. */
    private static final class Rewrite extends DelegatingDeserializer {
        private static final long serialVersionUID = 1L;
        private final Fix fix;

        Rewrite(JsonDeserializer<?> delegate, Fix fix) {
            super(delegate);
            this.fix = fix;
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
            return new Rewrite(delegate, fix);
        }

        @Override
        public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            JsonNode tree = ctxt.readTree(p);
            if (tree instanceof ObjectNode map) {
                fix.apply(map);
            }
            try (JsonParser fixed = tree.traverse(p.getCodec())) {
                fixed.nextToken();
                return _delegatee.deserialize(fixed, ctxt);
            }
        }
    }

    /** An {@link OpResult} as {@code key, value, error (name), code, message}. */
    @SuppressWarnings("rawtypes")
    static final class ResultWriter extends StdSerializer<OpResult> {
        private static final long serialVersionUID = 1L;

        ResultWriter() {
            super(OpResult.class);
        }

        @Override
        public void serialize(OpResult r, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeStartObject(r);
            gen.writeStringField("key", r.key());
            gen.writeFieldName("value");
            provider.defaultSerializeValue(r.value(), gen);
            ErrorCode error = r.error() == null ? ErrorCode.INTERNAL_ERROR : r.error();
            gen.writeStringField("error", error.name());
            gen.writeNumberField("code", error.code());
            gen.writeStringField("message", r.message());
            gen.writeEndObject();
        }
    }
}
