package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;

/**
 * Found by ConcurrentStoreTest: two threads of one client put the same key; the first put was
 * cancelled by a forced remove and the second started; the first thread's put-end, naming only
 * (client, key), then published the second put's half-written blocks with the first one's
 * checksum. Put-end and put-revoke now quote the put id.
 */
class SupersededPutTest {
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    @Test
    void aSupersededPutOfTheSameClientCanNeitherPublishNorFreeTheNewOne() {
        f.mount("c1", "s1", 1 << 20);
        long first = m.putStart("c1", k("a"), 1000, ReplicateConfig.DEFAULT, false).putId();
        m.remove(k("a"), true);
        long second = m.putStart("c1", k("a"), 2000, ReplicateConfig.DEFAULT, false).putId();
        assertEquals(ErrorCode.INVALID_WRITE,
                assertThrows(StoreException.class, () -> m.putEnd("c1", k("a"), first, 1)).errorCode());
        assertEquals(ErrorCode.INVALID_WRITE,
                assertThrows(StoreException.class, () -> m.putRevoke("c1", k("a"), first)).errorCode());
        assertEquals("PROCESSING", m.queryKey(k("a")).orElseThrow().state());
        m.putEnd("c1", k("a"), second, 2);
        assertEquals(2000, m.getReplicaList(k("a")).sizeBytes());
        assertEquals(2, m.getReplicaList(k("a")).checksum());
    }
}
