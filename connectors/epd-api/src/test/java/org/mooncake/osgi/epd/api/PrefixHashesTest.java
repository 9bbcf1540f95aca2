package org.mooncake.osgi.epd.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

class PrefixHashesTest {

    @Test
    void equalPrefixesShareTheirBlocksAndADifferenceChangesEveryBlockAfterIt() {
        int[] a = new int[100];
        int[] b = new int[100];
        Arrays.setAll(a, i -> i);
        Arrays.setAll(b, i -> i == 70 ? -1 : i);
        List<byte[]> ha = PrefixHashes.of(a, null, 32);
        List<byte[]> hb = PrefixHashes.of(b, null, 32);
        assertEquals(4, ha.size());
        assertArrayEquals(ha.get(0), hb.get(0));
        assertArrayEquals(ha.get(1), hb.get(1));
        assertFalse(Arrays.equals(ha.get(2), hb.get(2)));
        assertFalse(Arrays.equals(ha.get(3), hb.get(3)), "a block's hash covers everything before it");
        assertArrayEquals(ha.get(1), PrefixHashes.of(Arrays.copyOf(a, 64), null, 32).get(1));
    }

    @Test
    void theMediaBehindPlaceholdersIsPartOfTheHash() {
        int[] t = {1, 2, 3, 3, 3, 4};
        String[] cat = {null, null, "cat", "cat", "cat", null};
        String[] dog = {null, null, "dog", "dog", "dog", null};
        assertFalse(Arrays.equals(PrefixHashes.of(t, cat, 4).get(0), PrefixHashes.of(t, dog, 4).get(0)));
        assertArrayEquals(PrefixHashes.of(t, cat, 4).get(0), PrefixHashes.of(t, cat.clone(), 4).get(0));
    }
}
