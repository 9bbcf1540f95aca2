package org.mooncake.osgi.store.admin.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.time.InstantSource;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mooncake.osgi.policy.leaselru.LeaseOrderPolicy;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.client.impl.EmbeddedStoreClient;
import org.mooncake.osgi.store.master.impl.MasterSettings;
import org.mooncake.osgi.store.master.impl.PolicySelector;
import org.mooncake.osgi.store.master.impl.StoreMaster;
import org.mooncake.osgi.transport.local.LocalTransport;

class StoreCommandsTest {
    private final Arena arena = Arena.ofShared();
    private final StoreMaster master;
    private final StoreCommands commands;

    StoreCommandsTest() {
        PolicySelector policies = new PolicySelector();
        policies.add(new PolicySelector.Offer(new LeaseOrderPolicy(), LeaseOrderPolicy.NAME, 0, 1));
        master = new StoreMaster(MasterSettings.DEFAULTS, InstantSource.system(), policies);
        var client = EmbeddedStoreClient.create(master, List.of(new LocalTransport()), "shell", "default", "local",
                InstantSource.system());
        client.mountSegment(arena.allocate(1 << 20, 64));
        commands = new StoreCommands(client, master, null);
    }

    @AfterEach
    void close() {
        arena.close();
    }

    @Test
    void putGetQueryAndStatsSpeakPlainText() {
        assertEquals("stored greeting (5 bytes)", commands.put("greeting", "hello"));
        assertEquals("hello", commands.get("greeting"));
        assertTrue(commands.put("img", "tensor", "10").contains("HIDDEN_STATE"));
        assertTrue(commands.query("img").contains("HIDDEN_STATE"));
        String stats = commands.stats();
        assertTrue(stats.contains("policy lease-lru"), stats);
        assertTrue(stats.contains("HIDDEN_STATE"), stats);
        String segments = commands.segments();
        assertTrue(segments.startsWith("shell/segment-1 "), segments);
        assertTrue(segments.endsWith("client shell  via local://" + LocalTransport.ADDRESS), segments);
        assertTrue(segments.contains(" B  HOST         client shell"), segments);
        assertTrue(stats.contains("memory HOST         segments 1  capacity 1,048,576 B"), stats);
        assertEquals("active: lease-lru\navailable: lease-lru", commands.policy());
        assertEquals("removed greeting", commands.remove("greeting", true));
        assertEquals("no object greeting", commands.query("greeting"));
    }

    /** A segment in GPU memory says so in store:segments, and store:stats shows each kind's capacity. */
    @Test
    void segmentsAndStatsShowTheMemoryKind() {
        master.mountSegment(new org.mooncake.osgi.store.master.SegmentDescriptor("shell/gpu-1", "shell", 2 << 20,
                List.of(new org.mooncake.osgi.store.master.SegmentEndpoint("local", LocalTransport.ADDRESS, "shell/gpu-1")),
                org.mooncake.osgi.store.spi.device.MemoryKind.CUDA_DEVICE));
        String gpu = commands.segments().lines().filter(l -> l.startsWith("shell/gpu-1 ")).findFirst().orElseThrow();
        assertTrue(gpu.contains(" B  CUDA_DEVICE  client shell  via local://"), gpu);
        String stats = commands.stats();
        assertTrue(stats.contains("memory CUDA_DEVICE  segments 1  capacity 2,097,152 B  used 0 B (0.0%)"), stats);
    }

    @Test
    void transfersAreListedByProtocol() {
        assertEquals("no transfers yet", commands.transfers());
        commands.put("greeting", "hello");
        commands.get("greeting");
        String table = commands.transfers();
        assertEquals(2, table.lines().count(), table);
        assertEquals(List.of("local", "1", "5", "0", "1", "5", "0", "0"), List.of(table.lines().toList().get(1).trim().split(" +")),
                table);
    }

    @Test
    void badInputSurfacesTheStoreError() {
        StoreException e = assertThrows(StoreException.class, () -> commands.put("k", "v", "77"));
        assertEquals(ErrorCode.INVALID_PARAMS, e.errorCode());
        assertEquals(ErrorCode.OBJECT_NOT_FOUND, assertThrows(StoreException.class, () -> commands.get("nope")).errorCode());
    }

    /** The container clears ConfigAdmin's store at every start: the answer says whether the choice lasts. */
    @Test
    void aPolicyChoiceSaysHowLongItLasts() {
        assertEquals("saved in file:/home/etc/org.mooncake.osgi.store.master.cfg",
                StoreCommands.kept("file:/home/etc/org.mooncake.osgi.store.master.cfg"));
        String lost = StoreCommands.kept(null);
        assertTrue(lost.startsWith("until this process stops") && lost.contains("etc/org.mooncake.osgi.store.master.cfg"),
                lost);
    }
}
