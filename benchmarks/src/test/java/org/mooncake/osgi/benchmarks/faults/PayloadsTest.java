package org.mooncake.osgi.benchmarks.faults;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;

class PayloadsTest {
    @Test
    void aKeyNamesItsSizeAndTypeAndHasOneValue() {
        String key = Payloads.key("c1g2", 17, 65536, ObjectDataType.WEIGHT);
        assertEquals(65536, Payloads.size(key));
        assertEquals(ObjectDataType.WEIGHT, Payloads.type(key));
        assertArrayEquals(Payloads.value(key), Payloads.value(key));
        assertEquals(65536, Payloads.value(key).length);
        assertNotEquals(Payloads.hash(Payloads.value(key)),
                Payloads.hash(Payloads.value(Payloads.key("c1g2", 18, 65536, ObjectDataType.WEIGHT))));
    }

    @Test
    void aShiftedOrTruncatedValueHashesDifferently() {
        byte[] v = Payloads.value(Payloads.key("c0g1", 1, 4096, ObjectDataType.KVCACHE));
        byte[] shifted = new byte[v.length];
        System.arraycopy(v, 1, shifted, 0, v.length - 1);
        assertNotEquals(Payloads.hash(v), Payloads.hash(shifted));
        assertNotEquals(Payloads.hash(v), Payloads.hash(v, v.length - 1));
    }
}
