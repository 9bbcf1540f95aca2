package org.mooncake.osgi.store.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HexFormat;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.master.DataGrant.Check;

class DataGrantTest {
    private static final GrantKey KEY = new GrantKey(HexFormat.of().parseHex(
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"));
    private static final long EXPIRES = 1_796_000_000_000L;

    /** The mac as another language computes it from the class comment (Python's hmac module gave this). */
    @Test
    void macMatchesTheDocumentedConstruction() {
        DataGrant g = DataGrant.sign(KEY, "seg-a", true, 4096, 65536, EXPIRES);
        assertEquals("d4868e5f2d591c6c1a4fbc224ec60b7b", HexFormat.of().formatHex(g.mac()));
    }

    @Test
    void permitsOnlyWhatWasGrantedUntilItExpires() {
        DataGrant g = DataGrant.sign(KEY, "seg-a", false, 4096, 8192, EXPIRES);
        long now = EXPIRES - 1;
        assertEquals(Check.PERMITTED, g.check(KEY, "seg-a", false, 4096, 8192, now));
        assertEquals(Check.PERMITTED, g.check(KEY, "seg-a", false, 8192, 4096, now), "a part of the range");
        assertEquals(Check.EXPIRED, g.check(KEY, "seg-a", false, 4096, 8192, EXPIRES));
        assertEquals(Check.WRONG_OPERATION, g.check(KEY, "seg-a", true, 4096, 8192, now));
        assertEquals(Check.OUT_OF_RANGE, g.check(KEY, "seg-a", false, 4095, 8192, now));
        assertEquals(Check.OUT_OF_RANGE, g.check(KEY, "seg-a", false, 4096, 8193, now));
        assertEquals(Check.OUT_OF_RANGE, g.check(KEY, "seg-a", false, Long.MAX_VALUE, 1, now), "no overflow");
        assertEquals(Check.FORGED, g.check(KEY, "seg-b", false, 4096, 8192, now), "another segment");
        assertEquals(Check.FORGED, g.check(GrantKey.random(), "seg-a", false, 4096, 8192, now), "another key");
    }

    @Test
    void anyChangedFieldIsAForgery() {
        DataGrant g = DataGrant.sign(KEY, "seg-a", false, 0, 100, EXPIRES);
        DataGrant[] altered = {
            new DataGrant(true, 0, 100, EXPIRES, g.mac()),
            new DataGrant(false, 0, 101, EXPIRES, g.mac()),
            new DataGrant(false, 1, 100, EXPIRES, g.mac()),
            new DataGrant(false, 0, 100, EXPIRES + 1, g.mac()),
        };
        for (DataGrant a : altered) {
            assertEquals(Check.FORGED, a.check(KEY, "seg-a", a.write(), a.offset(), a.length(), 0), a.toString());
        }
    }

    @Test
    void keysAndMacsAreCopiedAndNeverPrinted() {
        byte[] raw = new byte[32];
        GrantKey k = new GrantKey(raw);
        raw[0] = 1;
        assertEquals(new GrantKey(new byte[32]), k, "the key copied its bytes");
        assertFalse(k.toString().contains("0, 0"));
        DataGrant g = DataGrant.sign(k, "s", true, 0, 1, 1);
        g.mac()[0] ^= 1;
        assertEquals(DataGrant.sign(k, "s", true, 0, 1, 1), g, "mac() hands out a copy");
        assertNotEquals(GrantKey.random(), GrantKey.random());
        assertThrows(IllegalArgumentException.class, () -> new GrantKey(new byte[8]));
        assertThrows(IllegalArgumentException.class, () -> new DataGrant(true, 0, 1, 1, new byte[8]));
    }
}
