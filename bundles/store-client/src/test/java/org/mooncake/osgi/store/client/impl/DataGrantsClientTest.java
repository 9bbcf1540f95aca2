package org.mooncake.osgi.store.client.impl;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.DataGrant.Check;
import org.mooncake.osgi.store.master.GrantKey;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.mooncake.osgi.store.spi.transport.TransferOp;
import org.mooncake.osgi.store.spi.transport.TransferRequest;
import org.mooncake.osgi.store.spi.transport.TransferStatus;

/**
 * The client mounts each segment with a fresh key that the transports get too, and sends the
 * master's grant with every transfer: a transport that checks (as tcp does) finds each permitted.
 */
class DataGrantsClientTest {
    private ClientFixture f;

    @AfterEach
    void close() {
        if (f != null) {
            f.close();
        }
    }

    /** Checks every request's grant against the key its segment was exposed with, as the tcp server does. */
    private static final class CheckingTransport extends HookedTransport {
        final Map<String, GrantKey> keys = new ConcurrentHashMap<>();
        final List<Check> checks = new CopyOnWriteArrayList<>();
        volatile boolean stallWrites;
        /** The segment owner's clock: the fixture's master runs on a manual one. */
        volatile java.util.function.LongSupplier now = System::currentTimeMillis;

        @Override
        public SegmentEndpoint expose(String name, MemorySegment memory, GrantKey grantKey) {
            keys.put(name, grantKey);
            return expose(name, memory);
        }

        @Override
        public CompletionStage<List<TransferStatus>> submit(List<TransferRequest> batch) {
            for (TransferRequest r : batch) {
                Check c = r.grant() == null ? null : r.grant().check(keys.get(r.remote().segmentName()),
                        r.remote().segmentName(), r.op() == TransferOp.WRITE, r.remoteOffset(), r.length(),
                        now.getAsLong());
                checks.add(c == null ? Check.FORGED : c);
            }
            if (stallWrites && batch.getFirst().op() == TransferOp.WRITE) {
                return CompletableFuture.completedFuture(
                        batch.stream().map(r -> TransferStatus.failedInDoubt("no answer in time")).toList());
            }
            return inner.submit(batch);
        }
    }

    @Test
    void everyTransferCarriesAGrantTheSegmentsKeyPermits() {
        CheckingTransport t = new CheckingTransport();
        f = new ClientFixture(t, 1 << 20, 1 << 20);
        t.now = f.clock::millis;
        byte[] value = "granted bytes".getBytes(StandardCharsets.UTF_8);
        f.client.put("k", value, ReplicateConfig.builder().replicaCount(2).build());
        assertArrayEquals(value, f.client.get("k"));
        assertEquals(2, t.keys.size(), "each segment exposed with a key");
        assertFalse(t.keys.values().stream().distinct().count() < 2, "a key per segment");
        assertEquals(List.of(Check.PERMITTED, Check.PERMITTED, Check.PERMITTED), t.checks,
                "two replica WRITEs and one READ, each permitted");
    }

    @Test
    void aWriteInDoubtRevokesThePutKeepingItsSpaceUntilTheGrantsExpire() {
        CheckingTransport t = new CheckingTransport();
        f = new ClientFixture(t, 1 << 20);
        t.now = f.clock::millis;
        t.stallWrites = true;
        StoreException e = assertThrows(StoreException.class, () -> f.client.put("k", new byte[1000]));
        assertEquals(ErrorCode.TRANSFER_FAIL, e.errorCode());
        assertEquals(0, f.master.stats().processingPuts(), "the put was revoked");
        long held = f.master.stats().usedBytes();
        assertFalse(held < 1000, "its block waits for the grant to expire, " + held + " bytes held");
        t.stallWrites = false;
        f.client.put("k", new byte[1000]); // the key is free again at once
    }
}
