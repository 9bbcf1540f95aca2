package org.mooncake.osgi.epd.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

class KeyNamespaceTest {
    private static final KeyNamespace NS = new KeyNamespace("", "mooncake-vl", "r1", "a1b2", DType.F32, 1,
            KeyNamespace.Parallel.SINGLE);

    @Test
    void hiddenStateKeysHaveEveryComponent() {
        assertEquals("embedding@kind:encoder_output@model:mooncake-vl@revision:r1@encoder:a1b2@dtype:f32@layout:v1"
                + "@storage:replicated_object@parallel:tp:1@pp:1@pcp:1@dcp:1@mm_tp:weights@tensor_layout:tensor"
                + "@id:sha256-00ff", NS.hiddenState("sha256-00ff"));
    }

    @Test
    void kvKeysFollowVllmsMooncakeConnector() {
        assertEquals("tenant%2Fa@mooncake-vl@revision:r1@config:a1b2@kv_dtype:f32@layout:v1@tp:1@tp_rank:0@pcp1@dcp1@pp_rank:0@group:0@00ff",
                new KeyNamespace("tenant/a", "mooncake-vl", "r1", "a1b2", DType.F32, 1, KeyNamespace.Parallel.SINGLE)
                        .kvBlock(0, new byte[] {0, (byte) 0xff}));
    }

    /** Any difference in what a tensor depends on gives another key: incompatible reuse cannot happen. */
    @Test
    void everyComponentSeparatesKeys() {
        List<KeyNamespace> variants = List.of(NS,
                new KeyNamespace("p", "mooncake-vl", "r1", "a1b2", DType.F32, 1, KeyNamespace.Parallel.SINGLE),
                new KeyNamespace("", "other", "r1", "a1b2", DType.F32, 1, KeyNamespace.Parallel.SINGLE),
                new KeyNamespace("", "mooncake-vl", "r2", "a1b2", DType.F32, 1, KeyNamespace.Parallel.SINGLE),
                new KeyNamespace("", "mooncake-vl", "r1", "ffff", DType.F32, 1, KeyNamespace.Parallel.SINGLE),
                new KeyNamespace("", "mooncake-vl", "r1", "a1b2", DType.BF16, 1, KeyNamespace.Parallel.SINGLE),
                new KeyNamespace("", "mooncake-vl", "r1", "a1b2", DType.F32, 2, KeyNamespace.Parallel.SINGLE),
                new KeyNamespace("", "mooncake-vl", "r1", "a1b2", DType.F32, 1,
                        new KeyNamespace.Parallel(2, 1, 1, 1, "weights", 0, 0)),
                new KeyNamespace("", "mooncake-vl", "r1", "a1b2", DType.F32, 1,
                        new KeyNamespace.Parallel(1, 1, 1, 1, "data", 0, 0)));
        Set<String> hidden = new HashSet<>();
        Set<String> kv = new HashSet<>();
        for (KeyNamespace n : variants) {
            hidden.add(n.hiddenState("x"));
            kv.add(n.kvBlock(0, new byte[] {1}));
        }
        assertEquals(variants.size(), hidden.size());
        assertEquals(variants.size() - 1, kv.size(), "KV keys do not carry the mm_tp mode");
        assertNotEquals(NS.kvBlock(0, new byte[] {1}), NS.kvBlock(1, new byte[] {1}));
    }

    @Test
    void componentsAreEscapedSoNoValueForgesASeparator() {
        assertEquals("a%40b%3Ac%2F%20%C3%A9-_.~", KeyNamespace.escape("a@b:c/ é-_.~"));
        String forged = NS.hiddenState("x@model:evil");
        assertTrue(forged.endsWith("@id:x%40model%3Aevil"), forged);
    }

    @Test
    void badNamespacesAreRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> new KeyNamespace("", "", "r1", "h", DType.F32, 1, KeyNamespace.Parallel.SINGLE));
        assertThrows(IllegalArgumentException.class,
                () -> new KeyNamespace("", "m", "r1", "h", DType.F32, 0, KeyNamespace.Parallel.SINGLE));
        assertThrows(IllegalArgumentException.class, () -> new KeyNamespace.Parallel(2, 1, 1, 1, "w", 2, 0));
        assertThrows(IllegalArgumentException.class, () -> NS.hiddenState(""));
        assertThrows(IllegalArgumentException.class, () -> NS.hiddenState("x".repeat(1000)));
    }
}
