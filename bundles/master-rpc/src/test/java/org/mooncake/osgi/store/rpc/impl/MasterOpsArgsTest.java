package org.mooncake.osgi.store.rpc.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.StoreException;

import com.fasterxml.jackson.core.type.TypeReference;

/** Arguments as the server decodes them: what a caller cannot stretch or leave out. */
class MasterOpsArgsTest {
    private static final TypeReference<List<ObjectKey>> KEYS = new TypeReference<>() {
    };

    private static void assertInvalid(String mentioning, org.junit.jupiter.api.function.Executable decode) {
        StoreException e = assertThrows(StoreException.class, decode);
        assertEquals(ErrorCode.INVALID_PARAMS, e.errorCode(), e.getMessage());
        assertEquals(true, e.getMessage().contains(mentioning), e.getMessage());
    }

    @Test
    void aBatchUpToTheLimitIsDecodedAndOneLongerIsRefused() {
        List<ObjectKey> three = List.of(ObjectKey.of("a"), ObjectKey.of("b"), ObjectKey.of("c"));
        var args = MasterProtocolExamples.args(three);
        assertEquals(three, new MasterOps.Args(args, 3).get(0, KEYS));
        assertInvalid("at most 2", () -> new MasterOps.Args(args, 2).get(0, KEYS));
    }

    @Test
    void theDefaultLimitIsTheDocumentedOne() {
        assertEquals(MasterOps.DEFAULT_MAX_BATCH, new MasterOps.Args(MasterProtocolExamples.args()).maxBatch());
    }

    @Test
    void aNullOrEmptyArgumentOrANullInABatchIsRefusedNotPassedOn() {
        assertInvalid("is null", () -> new MasterOps.Args(MasterProtocolExamples.args((Object) null)).get(0, Boolean.class));
        assertInvalid("is empty", () -> new MasterOps.Args(MasterProtocolExamples.args("")).get(0, Boolean.class));
        assertInvalid("holds a null", () -> new MasterOps.Args(
                MasterProtocolExamples.args(Arrays.asList(ObjectKey.of("a"), null))).get(0, KEYS));
    }

    @Test
    void aKeyLongerThanTheLimitIsRefusedAsAnInvalidKey() {
        var args = MasterProtocolExamples.args(new ObjectKey("default", "k"));
        ((com.fasterxml.jackson.databind.node.ObjectNode) args.get(0)).put("key", "k".repeat(ObjectKey.MAX_KEY_BYTES + 1));
        StoreException e = assertThrows(StoreException.class, () -> new MasterOps.Args(args).get(0, ObjectKey.class));
        assertEquals(ErrorCode.INVALID_KEY, e.errorCode(), e.getMessage());
    }
}
