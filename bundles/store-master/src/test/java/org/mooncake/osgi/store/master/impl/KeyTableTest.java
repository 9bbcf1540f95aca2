package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.api.ReplicateConfig;

class KeyTableTest {

    /** An object with a put in progress: not vacant. */
    private static ObjectMeta live(ObjectKey key) {
        ObjectMeta m = new ObjectMeta(key);
        m.pending = new Version(1, "c1", 1, ReplicateConfig.DEFAULT, List.of(), 0, 0);
        return m;
    }

    /** "Aa" and "BB" have one String hash, so every word over them collides with every other of its length. */
    private static List<ObjectKey> collidingKeys(int letters) {
        List<ObjectKey> keys = new ArrayList<>();
        for (int bits = 0; bits < 1 << letters; bits++) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < letters; i++) {
                sb.append((bits >> i & 1) == 0 ? "Aa" : "BB");
            }
            keys.add(ObjectKey.of(sb.toString()));
        }
        return keys;
    }

    @Test
    void collidingKeysAreTellApartAndSurviveRemovalsAroundThem() {
        List<ObjectKey> keys = collidingKeys(6);
        assertEquals(1, keys.stream().mapToInt(ObjectKey::hashCode).distinct().count(), "the fixture collides");
        KeyTable table = new KeyTable();
        Map<ObjectKey, ObjectMeta> metas = new HashMap<>();
        keys.forEach(k -> {
            ObjectMeta m = live(k);
            metas.put(k, m);
            table.add(m);
        });
        for (int i = 0; i < keys.size(); i += 2) {
            assertTrue(table.remove(metas.get(keys.get(i))));
        }
        for (int i = 0; i < keys.size(); i++) {
            ObjectMeta found = table.get(keys.get(i));
            if (i % 2 == 0) {
                assertNull(found, keys.get(i) + " was removed");
            } else {
                assertSame(metas.get(keys.get(i)), found);
            }
        }
        assertEquals(keys.size() / 2, table.size());
    }

    @Test
    void removesByIdentityNotByKey() {
        KeyTable table = new KeyTable();
        ObjectMeta live = live(ObjectKey.of("k"));
        table.add(live);
        assertFalse(table.remove(live(ObjectKey.of("k"))), "an equal key of another object is not it");
        assertSame(live, table.get(ObjectKey.of("k")));
        assertTrue(table.remove(live));
        assertFalse(table.remove(live), "already gone");
        assertNull(table.get(ObjectKey.of("k")));
    }

    /** Random adds, removes and look-ups against a HashMap, with churn enough to force many rehashes. */
    @RepeatedTest(5)
    void agreesWithAHashMapUnderChurn(RepetitionInfo rep) {
        churnAgainstAHashMap(new Random(rep.getCurrentRepetition()), collidingKeys(7), 2000, false);
    }

    /** The same, with objects also turning vacant (an eviction's doing) among the operations. */
    @RepeatedTest(5)
    void agreesWithAHashMapWhenObjectsAlsoTurnVacant(RepetitionInfo rep) {
        churnAgainstAHashMap(new Random(100 + rep.getCurrentRepetition()), collidingKeys(6), 500, true);
    }

    private static void churnAgainstAHashMap(Random rnd, List<ObjectKey> colliding, int plainKeys, boolean vacancies) {
        List<ObjectKey> universe = new ArrayList<>(colliding);
        for (int i = 0; i < plainKeys; i++) {
            universe.add(new ObjectKey(i % 3 == 0 ? "t" + rnd.nextInt(4) : ObjectKey.DEFAULT_TENANT, "key-" + i));
        }
        KeyTable table = new KeyTable();
        Map<ObjectKey, ObjectMeta> reference = new HashMap<>();
        for (int op = 0; op < 200_000; op++) {
            ObjectKey k = universe.get(rnd.nextInt(universe.size()));
            ObjectMeta present = reference.get(k);
            int what = rnd.nextInt(vacancies ? 4 : 3);
            if (what == 0 && present == null && table.get(k) == null) { // the look-up drops a vacant one first
                ObjectMeta m = live(k);
                table.add(m);
                reference.put(k, m);
            } else if (what == 1 && present != null) {
                assertTrue(table.remove(present));
                reference.remove(k);
            } else if (what == 3 && present != null) {
                present.pending = null; // vacant: absent for the table, held until met or rehashed
                reference.remove(k);
            } else {
                assertSame(present, table.get(k), "look-up of " + k + " at op " + op);
            }
            if (vacancies) {
                assertTrue(table.size() >= reference.size());
            } else {
                assertEquals(reference.size(), table.size());
            }
        }
        assertEquals(new HashSet<>(reference.values()), new HashSet<>(table.snapshot()));
        assertEquals(reference.size(), table.snapshot().size(), "no object twice");
    }

    @Test
    void aVacantObjectIsAbsentAndLeavesWhenMetOrRehashed() {
        KeyTable table = new KeyTable();
        ObjectMeta gone = live(ObjectKey.of("gone"));
        ObjectMeta kept = live(ObjectKey.of("kept"));
        table.add(gone);
        table.add(kept);
        gone.pending = null; // what an eviction leaves behind
        assertEquals(List.of(kept), table.snapshot(), "a walk does not see it");
        assertEquals(2, table.size(), "still held until met");
        assertNull(table.get(ObjectKey.of("gone")));
        assertEquals(1, table.size(), "the look-up that met it swept it");
        ObjectMeta again = live(ObjectKey.of("gone"));
        table.add(again);
        assertSame(again, table.get(ObjectKey.of("gone")));

        // Vacant objects nobody looks up again are swept when adds pass the load limit.
        List<ObjectMeta> many = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            ObjectMeta m = live(ObjectKey.of("v" + i));
            table.add(m);
            many.add(m);
        }
        many.forEach(m -> m.pending = null);
        for (int i = 0; i < 1000; i++) {
            table.add(live(ObjectKey.of("w" + i)));
        }
        assertTrue(table.size() < 1700, "most of the 1000 vacant objects were swept, held " + table.size());
        assertEquals(1002, table.snapshot().size());
    }

    /** A shard whose keys come and go (a put, then a remove, as the transfer benchmark does) holds only its entries. */
    @Test
    void keysThatComeAndGoLeaveNothingBehind() {
        KeyTable table = new KeyTable();
        ObjectMeta resident = live(ObjectKey.of("resident"));
        table.add(resident);
        for (int i = 0; i < 10_000; i++) {
            ObjectMeta m = live(ObjectKey.of("obj-" + i));
            assertNull(table.get(m.key));
            table.add(m);
            assertTrue(table.remove(m));
            assertEquals(1, table.occupied(), "after key " + i);
        }
        assertSame(resident, table.get(ObjectKey.of("resident")));
        assertEquals(16, table.capacity(), "never grew");
    }

    /** Keys whose home slot is {@code home} in a table of 16. */
    private static List<ObjectKey> homedAt(int home, int count) {
        List<ObjectKey> out = new ArrayList<>();
        for (int i = 0; out.size() < count; i++) {
            ObjectKey k = ObjectKey.of("h" + i);
            if ((KeyTable.mix(k.hashCode()) & 15) == home) {
                out.add(k);
            }
        }
        return out;
    }

    /**
     * A run that wraps from the last slot to the first: removing any one of its entries moves back
     * exactly those whose probe passed it, across the wrap, and leaves every other one where it is found.
     */
    @Test
    void removalsInARunThatWrapsKeepEveryOtherEntryReachable() {
        List<ObjectKey> keys = new ArrayList<>(homedAt(14, 3)); // slots 14, 15, 0
        keys.addAll(homedAt(0, 2)); // displaced to 1, 2
        keys.addAll(homedAt(2, 1)); // displaced to 3
        for (int removed = 0; removed < keys.size(); removed++) {
            KeyTable table = new KeyTable();
            List<ObjectMeta> metas = keys.stream().map(KeyTableTest::live).toList();
            metas.forEach(table::add);
            assertTrue(table.remove(metas.get(removed)));
            for (int i = 0; i < keys.size(); i++) {
                assertSame(i == removed ? null : metas.get(i), table.get(keys.get(i)), "key " + i + " after removing " + removed);
            }
            assertEquals(keys.size() - 1, table.occupied());
            assertEquals(keys.size() - 1, table.size());
        }
    }
}
