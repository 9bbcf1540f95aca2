package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ReplicateConfig;

class GroupIdsTest {
    private final GroupIds ids = new GroupIds();

    private static ReplicateConfig inGroup(String id) {
        return ReplicateConfig.builder().dataType(ObjectDataType.KVCACHE).groupId(id).build();
    }

    /** new String(...): the copies a decoder makes, equal but not the same instance. */
    @Test
    void equalGroupIdsShareOneInstanceAndEverythingElseIsKept() {
        ReplicateConfig first = inGroup(new String("session-7"));
        ReplicateConfig second = ReplicateConfig.builder().dataType(ObjectDataType.HIDDEN_STATE).replicaCount(2)
                .recomputeCostMs(12.5).groupId(new String("session-7")).build();
        assertSame(first, ids.canonical(first), "the first of its group is kept as it is");
        ReplicateConfig shared = ids.canonical(second);
        assertSame(first.groupId(), shared.groupId());
        assertEquals(second, shared, "only the instance of the id changes");
        ReplicateConfig none = ReplicateConfig.DEFAULT;
        assertSame(none, ids.canonical(none));
    }

    @Test
    void pastItsBoundItStartsOverAndStillAnswers() {
        for (int i = 0; i <= GroupIds.MAX_IDS; i++) {
            ids.canonical(inGroup("g" + i));
        }
        assertEquals(0, ids.size(), "cleared once over the bound");
        ReplicateConfig again = inGroup(new String("g1"));
        assertSame(again, ids.canonical(again), "g1 was forgotten: this copy is the first again");
        ReplicateConfig copy = inGroup(new String("g1"));
        assertNotSame(again.groupId(), copy.groupId());
        assertSame(again.groupId(), ids.canonical(copy).groupId());
    }

    /** What the policies see: the index entries of one group carry one string. */
    @Test
    void theMasterIndexesObjectsOfOneGroupWithOneString() {
        MasterFixture f = new MasterFixture();
        f.mount("c1", "s1", 1 << 20);
        f.put("a", 1024, inGroup(new String("conv-1")));
        f.put("b", 1024, inGroup(new String("conv-1")));
        IndexEntry a = f.master.shardOf(k("a")).objects.get(k("a")).published();
        IndexEntry b = f.master.shardOf(k("b")).objects.get(k("b")).published();
        assertEquals("conv-1", a.groupId());
        assertSame(a.groupId(), b.groupId());
        assertEquals(false, a.groupOnly());
        f.put("c", 1024, inGroup(new String("conv-1")).toBuilder().groupOnly(true).build());
        IndexEntry c = f.master.shardOf(k("c")).objects.get(k("c")).published();
        assertEquals(true, c.groupOnly(), "the hint reaches the policies' view");
        assertSame(a.groupId(), c.groupId(), "and the group id is still shared");
    }
}
