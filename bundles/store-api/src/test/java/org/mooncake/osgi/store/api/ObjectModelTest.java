package org.mooncake.osgi.store.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectModelTest {

    private static void assertError(ErrorCode expected, Executable call) {
        StoreException e = assertThrows(StoreException.class, call);
        assertEquals(expected, e.errorCode(), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(expected.code())), "the message carries the code");
    }

    @Test
    void keysAreOneToMaxBytesOfUtf8WithoutControlOrWhitespace() {
        assertEquals("a/b:c-1.é☃", ObjectKey.of("a/b:c-1.é☃").key());
        assertEquals(ObjectKey.MAX_KEY_BYTES, ObjectKey.of("x".repeat(ObjectKey.MAX_KEY_BYTES)).key().length());
        assertError(ErrorCode.INVALID_KEY, () -> ObjectKey.of(""));
        assertError(ErrorCode.INVALID_KEY, () -> ObjectKey.of(null));
        assertError(ErrorCode.INVALID_KEY, () -> ObjectKey.of("x".repeat(ObjectKey.MAX_KEY_BYTES + 1)));
        // 342 three-byte characters are 1026 bytes although only 342 chars
        assertError(ErrorCode.INVALID_KEY, () -> ObjectKey.of("☃".repeat(342)));
        // the limit in bytes, for one-, two-, three- and four-byte characters
        for (String c : new String[] {"x", "é", "☃", "😀"}) {
            int fit = ObjectKey.MAX_KEY_BYTES / c.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            assertEquals(c.repeat(fit), ObjectKey.of(c.repeat(fit)).key(), c);
            assertError(ErrorCode.INVALID_KEY, () -> ObjectKey.of(c.repeat(fit + 1)));
        }
        for (String bad : new String[] {"a b", "a\tb", "a\nb", "a\u0000b", "a\u007fb", "\ud800"}) {
            assertError(ErrorCode.INVALID_KEY, () -> ObjectKey.of(bad));
        }
        assertEquals("😀", ObjectKey.of("😀").key(), "a valid surrogate pair");
    }

    /** The ASCII fast paths say what the general rules say, for every char. */
    @Test
    void everySingleCharacterIsJudgedByTheDocumentedRules() {
        for (char c = 0; c < Character.MAX_VALUE; c++) {
            String s = String.valueOf(c);
            boolean keyOk = !(Character.isISOControl(c) || Character.isWhitespace(c) || Character.isSurrogate(c));
            assertEquals(keyOk, accepted(() -> ObjectKey.of(s)), "key U+" + Integer.toHexString(c));
            boolean tenantOk = c < 128 && (Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-');
            assertEquals(tenantOk, accepted(() -> new ObjectKey(s, "k")), "tenant U+" + Integer.toHexString(c));
        }
    }

    private static boolean accepted(Runnable make) {
        try {
            make.run();
            return true;
        } catch (StoreException e) {
            return false;
        }
    }

    @Test
    void tenantsAreShortSafeNames() {
        assertEquals("team-a.v2_x", new ObjectKey("team-a.v2_x", "k").tenant());
        assertError(ErrorCode.INVALID_PARAMS, () -> new ObjectKey("", "k"));
        assertError(ErrorCode.INVALID_PARAMS, () -> new ObjectKey("a/b", "k"));
        assertError(ErrorCode.INVALID_PARAMS, () -> new ObjectKey("t".repeat(65), "k"));
        assertEquals("k", ObjectKey.of("k").toString());
        assertEquals("t/k", new ObjectKey("t", "k").toString());
    }

    @Test
    void dataTypesKeepMooncakesCodesAndRefuseReservedOnes() {
        assertEquals(10, ObjectDataType.HIDDEN_STATE.code());
        assertEquals(1, ObjectDataType.KVCACHE.code());
        for (ObjectDataType t : ObjectDataType.values()) {
            assertEquals(t, ObjectDataType.ofCode(t.code()));
            assertEquals(t, ObjectDataType.parse(t.name().toLowerCase()));
            assertEquals(t, ObjectDataType.parse(String.valueOf(t.code())));
        }
        assertError(ErrorCode.INVALID_PARAMS, () -> ObjectDataType.ofCode(11));
        assertError(ErrorCode.INVALID_PARAMS, () -> ObjectDataType.ofCode(-1));
        assertError(ErrorCode.INVALID_PARAMS, () -> ObjectDataType.parse("PIXELS"));
        assertError(ErrorCode.INVALID_PARAMS, () -> ObjectDataType.parse("99999999999"));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, ReplicateConfig.MAX_REPLICAS + 1})
    void replicaCountsOutsideTheRangeAreRefused(int n) {
        assertError(ErrorCode.INVALID_PARAMS, () -> ReplicateConfig.builder().replicaCount(n).build());
    }

    @Test
    void replicateConfigRefusesNonsenseAndCopiesItsLists() {
        assertError(ErrorCode.INVALID_TTL, () -> ReplicateConfig.builder().softPinTtlMs(-5).build());
        assertError(ErrorCode.INVALID_PARAMS, () -> ReplicateConfig.builder().recomputeCostMs(-1).build());
        assertError(ErrorCode.INVALID_PARAMS, () -> ReplicateConfig.builder().recomputeCostMs(Double.POSITIVE_INFINITY).build());
        assertError(ErrorCode.INVALID_PARAMS, () -> ReplicateConfig.builder().groupId("").build());
        assertError(ErrorCode.INVALID_PARAMS, () -> ReplicateConfig.builder().groupOnly(true).build());
        ReplicateConfig scoped = ReplicateConfig.builder().groupId("s").groupOnly(true).build();
        assertTrue(scoped.groupOnly());
        assertEquals(scoped, scoped.toBuilder().build(), "the hint survives a copy");
        assertEquals(false, ReplicateConfig.DEFAULT.groupOnly());
        assertError(ErrorCode.INVALID_PARAMS, () -> ReplicateConfig.builder().dataType(null).build());
        var segments = new java.util.ArrayList<>(java.util.List.of("s1"));
        ReplicateConfig c = ReplicateConfig.builder().preferredSegments(segments).recomputeCostMs(12.5).build();
        segments.add("s2");
        assertEquals(java.util.List.of("s1"), c.preferredSegments());
        assertTrue(c.hasCostHint());
        assertEquals(c, c.toBuilder().build());
        assertEquals(false, ReplicateConfig.DEFAULT.hasCostHint());
    }

    @Test
    void errorCodesAreNumericallyMooncakes() {
        assertEquals(-200, ErrorCode.NO_AVAILABLE_HANDLE.code());
        assertEquals(-704, ErrorCode.OBJECT_NOT_FOUND.code());
        assertEquals(-705, ErrorCode.OBJECT_ALREADY_EXISTS.code());
        assertEquals(-706, ErrorCode.OBJECT_HAS_LEASE.code());
        assertEquals(-707, ErrorCode.LEASE_EXPIRED.code());
        assertEquals(ErrorCode.LEASE_EXPIRED, ErrorCode.ofCode(-707));
        assertEquals(-2004, ErrorCode.OBJECT_BEING_WRITTEN.code());
    }

    /** A newer master's code, unknown here, fails the one call as INTERNAL_ERROR; it must not throw while being read. */
    @Test
    void anUnknownCodeIsAnInternalErrorNotAnException() {
        assertEquals(ErrorCode.INTERNAL_ERROR, ErrorCode.ofCode(12345));
        assertEquals(ErrorCode.INTERNAL_ERROR, ErrorCode.ofCode(-2999));
        assertFalse(ErrorCode.isKnown(-2999));
        for (ErrorCode e : ErrorCode.values()) {
            assertEquals(e, ErrorCode.ofCode(e.code()));
            assertTrue(ErrorCode.isKnown(e.code()));
        }
    }
}
