package org.mooncake.osgi.store.master.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mooncake.osgi.store.master.impl.MasterFixture.k;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.ReplicateConfig;
import org.mooncake.osgi.store.api.SoftPinAction;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.ReadLease;
import org.mooncake.osgi.store.master.ReplicaLocation;
import org.mooncake.osgi.store.master.SegmentDescriptor;
import org.mooncake.osgi.store.master.SegmentEndpoint;
import org.junit.jupiter.api.function.Executable;

class StoreMasterTest {
    private final MasterFixture f = new MasterFixture();
    private final StoreMaster m = f.master;

    private static void assertError(ErrorCode expected, Executable call) {
        StoreException e = assertThrows(StoreException.class, call);
        assertEquals(expected, e.errorCode(), e.getMessage());
    }

    @Test
    void nothingIsReadableBeforePutEnd() {
        f.mount("c1", "s1", 1 << 20);
        long put1 = m.putStart("c1", k("a"), 1000, ReplicateConfig.DEFAULT, false).putId();
        assertError(ErrorCode.REPLICA_IS_NOT_READY, () -> m.getReplicaList(k("a")));
        assertFalse(m.exists(k("a")));
        m.putEnd("c1", k("a"), put1, 7);
        ReadLease lease = m.getReplicaList(k("a"));
        assertEquals(1000, lease.sizeBytes());
        assertEquals(7, lease.checksum());
        assertTrue(m.exists(k("a")));
    }

    /** A transport restarted under a segment: its objects stay, and readers get the new endpoints whole. */
    @Test
    void aSegmentsEndpointsChangeInPlaceAndNothingElseDoes() {
        f.mount("c1", "s1", 1 << 20);
        f.put("a", 100);
        SegmentEndpoint tcp = new SegmentEndpoint("tcp", "127.0.0.1:4000", "s1");
        SegmentEndpoint local = new SegmentEndpoint("local", "in-process", "s1");
        m.updateSegmentEndpoints(new SegmentDescriptor("s1", "c1", 1 << 20, List.of(local, tcp)));
        assertEquals(List.of(local, tcp), m.getReplicaList(k("a")).replicas().getFirst().endpoints());
        assertEquals("local,tcp", m.segments().getFirst().protocol());
        assertEquals(1, m.stats().objects(), "the object stays");
        assertError(ErrorCode.SEGMENT_NOT_FOUND,
                () -> m.updateSegmentEndpoints(new SegmentDescriptor("s9", "c1", 1 << 20, List.of(tcp))));
        assertError(ErrorCode.INVALID_PARAMS,
                () -> m.updateSegmentEndpoints(new SegmentDescriptor("s1", "c2", 1 << 20, List.of(tcp))));
        assertError(ErrorCode.INVALID_PARAMS,
                () -> m.updateSegmentEndpoints(new SegmentDescriptor("s1", "c1", 2 << 20, List.of(tcp))));
        assertError(ErrorCode.INVALID_PARAMS,
                () -> m.updateSegmentEndpoints(new SegmentDescriptor("s1", "c1", 1 << 20, List.of())));
        assertEquals(List.of(local, tcp), m.getReplicaList(k("a")).replicas().getFirst().endpoints(), "refusals change nothing");
        m.unmountSegment("c1", "s1");
        assertError(ErrorCode.SEGMENT_NOT_FOUND,
                () -> m.updateSegmentEndpoints(new SegmentDescriptor("s1", "c1", 1 << 20, List.of(tcp))));
    }

    @Test
    void revokeFreesTheSpaceAndForgetsTheKey() {
        f.mount("c1", "s1", 1 << 20);
        long put2 = m.putStart("c1", k("a"), 1000, ReplicateConfig.DEFAULT, false).putId();
        assertEquals(1024, m.stats().usedBytes());
        m.putRevoke("c1", k("a"), put2);
        assertEquals(0, m.stats().usedBytes());
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> m.getReplicaList(k("a")));
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> m.putEnd("c1", k("a"), put2, 0));
    }

    @Test
    void aSecondPutOfAKeyIsRefusedButUpsertReplacesAtPutEnd() {
        f.mount("c1", "s1", 1 << 20);
        f.put("a", 100);
        assertError(ErrorCode.OBJECT_ALREADY_EXISTS, () -> m.putStart("c1", k("a"), 100, ReplicateConfig.DEFAULT, false));
        long put3 = m.putStart("c1", k("a"), 200, ReplicateConfig.DEFAULT, true).putId();
        assertEquals(100, m.getReplicaList(k("a")).sizeBytes(), "old version readable during the upsert");
        m.putEnd("c1", k("a"), put3, 9);
        assertEquals(200, m.getReplicaList(k("a")).sizeBytes());
        assertEquals(1, m.stats().objects());
    }

    @Test
    void aLeaseBlocksRemovalUntilItEndsUnlessForced() {
        f.mount("c1", "s1", 1 << 20);
        f.put("a", 100);
        f.put("b", 100);
        m.getReplicaList(k("a"));
        m.getReplicaList(k("b"));
        assertError(ErrorCode.OBJECT_HAS_LEASE, () -> m.remove(k("a"), false));
        f.clock.advance(10_000);
        m.remove(k("a"), false);
        assertFalse(m.exists(k("a")));
        m.getReplicaList(k("b"));
        m.remove(k("b"), true);
        assertFalse(m.exists(k("b")));
        assertEquals(128, m.stats().usedBytes(), "a forced remove keeps the blocks until the lease ends");
        f.clock.advance(10_000);
        m.runHousekeeping();
        assertEquals(0, m.stats().usedBytes());
    }

    @Test
    void leasesOnlyExtend() {
        f.mount("c1", "s1", 1 << 20);
        f.put("a", 100);
        long first = m.getReplicaList(k("a")).leaseExpiresAtMs();
        m.update(new MasterSettings(1000, 1_800_000, 86_400_000, true, 0.05, 0.9, 10_000, 30_000, 600_000,
                AllocationStrategy.RANDOM, 1024, ""));
        assertEquals(first, m.getReplicaList(k("a")).leaseExpiresAtMs());
        f.clock.advance(20_000);
        assertEquals(f.clock.millis() + 1000, m.getReplicaList(k("a")).leaseExpiresAtMs());
    }

    @Test
    void replicasLandOnDistinctSegmentsBestEffort() {
        f.mount("c1", "s1", 1 << 20);
        f.mount("c1", "s2", 1 << 20);
        f.mount("c1", "s3", 1 << 20);
        List<ReplicaLocation> three = f.put("a", 100, ReplicateConfig.builder().replicaCount(3).build());
        assertEquals(Set.of("s1", "s2", "s3"), three.stream().map(ReplicaLocation::segmentName).collect(Collectors.toSet()));
        List<ReplicaLocation> five = f.put("b", 100, ReplicateConfig.builder().replicaCount(5).build());
        assertEquals(3, five.stream().map(ReplicaLocation::segmentName).distinct().count());
    }

    @Test
    void randomPlacementSpreadsEvenlyAndSkipsFullAndUnmountedSegments() {
        for (String s : List.of("s1", "s2", "s3", "s4")) {
            f.mount("c1", s, 8 << 20);
        }
        Map<String, Integer> landed = new java.util.TreeMap<>();
        for (int i = 0; i < 4000; i++) {
            landed.merge(f.put("k" + i, 100).getFirst().segmentName(), 1, Integer::sum);
        }
        // 1,000 expected on each; 200 away is over 7 standard deviations
        landed.values().forEach(n -> assertTrue(n > 800 && n < 1200, landed.toString()));

        f.mount("c2", "tiny", 4096);
        f.put("fills-tiny", 4096, ReplicateConfig.builder().preferredSegments(List.of("tiny")).build());
        m.unmountSegment("c1", "s1");
        for (int i = 0; i < 200; i++) {
            String segment = f.put("more" + i, 100).getFirst().segmentName();
            assertTrue(Set.of("s2", "s3", "s4").contains(segment), segment);
        }
    }

    @Test
    void preferredSegmentsComeFirstAndFreeRatioFirstPicksTheEmptiest() {
        m.update(m.settings().withAllocation(AllocationStrategy.FREE_RATIO_FIRST));
        f.mount("c1", "s1", 1 << 20);
        f.mount("c1", "s2", 1 << 20);
        assertEquals("s2", f.put("a", 100, ReplicateConfig.builder().preferredSegments(List.of("s2")).build())
                .getFirst().segmentName());
        assertEquals("s1", f.put("b", 100).getFirst().segmentName(), "s1 is emptier now");
    }

    @Test
    void aStalledPutCanBeTakenOverAfterTheDiscardTimeoutAndItsSpaceWaitsForTheReleaseTimeout() {
        f.mount("c1", "s1", 1 << 20);
        long put4 = m.putStart("zombie", k("a"), 1000, ReplicateConfig.DEFAULT, false).putId();
        f.clock.advance(29_999);
        assertError(ErrorCode.OBJECT_BEING_WRITTEN, () -> m.putStart("c2", k("a"), 1000, ReplicateConfig.DEFAULT, false));
        f.clock.advance(1);
        long put5 = m.putStart("c2", k("a"), 1000, ReplicateConfig.DEFAULT, false).putId();
        assertError(ErrorCode.INVALID_WRITE, () -> m.putEnd("zombie", k("a"), put4, 0));
        m.putEnd("c2", k("a"), put5, 5);
        assertEquals(2048, m.stats().usedBytes(), "the zombie's block is still reserved");
        f.clock.advance(600_000 - 30_000 - 1);
        m.heartbeat("c1");
        m.runHousekeeping();
        assertEquals(2048, m.stats().usedBytes());
        f.clock.advance(1);
        m.runHousekeeping();
        assertEquals(1024, m.stats().usedBytes());
        assertEquals(5, m.getReplicaList(k("a")).checksum());
    }

    @Test
    void aClientThatLeavesIsForgottenAtOnceWithWhatItStillHad() {
        f.mount("storage", "s1", 1 << 20);
        f.put("a", 100);
        m.heartbeat("pure-client");
        assertEquals(2, m.stats().clients());
        m.leave("pure-client");
        assertEquals(1, m.stats().clients());
        m.leave("storage"); // without unmounting first: its segment goes with it, objects whole
        assertEquals(0, m.stats().clients());
        assertTrue(m.segments().isEmpty());
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> m.getReplicaList(k("a")));
        m.leave("never-seen"); // ignored
        assertError(ErrorCode.INVALID_PARAMS, () -> m.leave(""));
        assertNotEquals(0, m.heartbeat("storage"), "it may come back, as a new registration");
        assertEquals(1, m.stats().clients());
    }

    /** Every client process that stops would otherwise leave a warning in the master's log ten seconds later. */
    @Test
    void aSilentClientWarnsOnlyWhenItTakesSegmentsWithIt() {
        java.util.List<java.util.logging.LogRecord> said = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler listen = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                said.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(StoreMaster.class.getName());
        log.addHandler(listen);
        try {
            f.mount("storage", "s1", 1 << 20);
            m.heartbeat("pure-client");
            f.clock.advance(MasterSettings.DEFAULTS.clientTtlMs() + 1);
            m.runHousekeeping();
            java.util.Map<Object, java.util.logging.Level> levels = new java.util.HashMap<>();
            for (java.util.logging.LogRecord r : said) {
                if (r.getMessage().contains("silent for")) {
                    levels.put(r.getParameters()[0], r.getLevel());
                }
            }
            assertEquals(java.util.Map.of("storage", java.util.logging.Level.WARNING, "pure-client",
                    java.util.logging.Level.INFO), levels);
            assertTrue(m.segments().isEmpty());
        } finally {
            log.removeHandler(listen);
        }
    }

    @Test
    void anAbandonedPutIsReclaimedAfterTheReleaseTimeout() {
        f.mount("c1", "s1", 1 << 20);
        long put6 = m.putStart("c1", k("a"), 1000, ReplicateConfig.DEFAULT, false).putId();
        f.clock.advance(599_999);
        m.heartbeat("c1");
        m.runHousekeeping();
        assertEquals(1, m.stats().processingPuts());
        f.clock.advance(1);
        m.runHousekeeping();
        assertEquals(0, m.stats().processingPuts());
        assertEquals(0, m.stats().usedBytes());
    }

    /** Thousands of puts in progress, several to a shard, ended, revoked or abandoned in every order. */
    @Test
    void onlyThePutsAbandonedPastTheReleaseTimeoutAreReclaimed() {
        f.mount("c1", "s1", 64 << 20);
        int n = 3000;
        long[] early = new long[n];
        long[] late = new long[n];
        for (int i = 0; i < n; i++) {
            early[i] = m.putStart("c1", k("early-" + i), 1000, ReplicateConfig.DEFAULT, false).putId();
        }
        f.clock.advance(100_000);
        for (int i = 0; i < n; i++) {
            late[i] = m.putStart("c1", k("late-" + i), 1000, ReplicateConfig.DEFAULT, false).putId();
        }
        for (int i = 0; i < n; i += 3) {
            m.putEnd("c1", k("early-" + i), early[i], i);
            m.putRevoke("c1", k("early-" + (i + 1)), early[i + 1]);
            m.putEnd("c1", k("late-" + (i + 2)), late[i + 2], i);
        }
        assertEquals(2L * n - n, m.stats().processingPuts());
        f.clock.advance(600_000 - 100_000);
        m.heartbeat("c1");
        m.runHousekeeping();
        assertEquals(2L * n / 3, m.stats().processingPuts(), "the early ones left open are reclaimed");
        assertEquals(2L * n / 3 * 1024 + 2L * n / 3 * 1024, m.stats().usedBytes(), "the ended ones and the late pending");
        for (int i = 0; i < n; i += 3) {
            assertEquals(i, m.getReplicaList(k("early-" + i)).checksum());
            assertFalse(m.queryKey(k("early-" + (i + 2))).isPresent(), "reclaimed whole");
            m.putEnd("c1", k("late-" + i), late[i], 7); // still its writer's to end
        }
        f.clock.advance(100_000);
        m.heartbeat("c1");
        m.runHousekeeping();
        assertEquals(0, m.stats().processingPuts());
        assertEquals(n * 1024L, m.stats().usedBytes(), "a third of the early puts and two thirds of the late ones ended");
    }

    @Test
    void aDeadClientsSegmentsGoAndObjectsWithoutAReplicaDisappearWhole() {
        f.mount("dead", "sd", 1 << 20);
        f.mount("alive", "sa", 1 << 20);
        f.put("only-dead", 100, ReplicateConfig.builder().preferredSegments(List.of("sd")).build());
        f.put("both", 100, ReplicateConfig.builder().replicaCount(2).build());
        long put7 = m.putStart("c1", k("writing"), 100, ReplicateConfig.builder().preferredSegments(List.of("sd")).build(), false).putId();
        f.clock.advance(10_001);
        m.heartbeat("alive");
        m.runHousekeeping();
        assertEquals(List.of("sa"), m.segments().stream().map(s -> s.name()).toList());
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> m.getReplicaList(k("only-dead")));
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> m.putEnd("c1", k("writing"), put7, 0));
        ReadLease both = m.getReplicaList(k("both"));
        assertEquals(List.of("sa"), both.replicas().stream().map(ReplicaLocation::segmentName).toList());
        assertEquals(1, m.stats().objects());
    }

    @Test
    void aClientDeclaredDeadGetsANewRegistrationWhenItSpeaksAgain() {
        long first = m.heartbeat("c1");
        assertEquals(first, m.heartbeat("c1"), "a known client keeps its registration");
        assertNotEquals(first, m.heartbeat("c2"));
        f.clock.advance(10_001);
        m.heartbeat("c2");
        m.runHousekeeping();
        assertNotEquals(first, m.heartbeat("c1"), "c1 was dropped: it must mount its segments again");
    }

    @Test
    void aSoftPinLastsFromPutEndAndReadsDoNotExtendIt() {
        f.mount("c1", "s1", 1 << 20);
        long put8 = m.putStart("c1", k("a"), 100, ReplicateConfig.builder().softPin(SoftPinAction.ENABLE).softPinTtlMs(5000).build(), false).putId();
        f.clock.advance(1000);
        long end = f.clock.millis();
        m.putEnd("c1", k("a"), put8, 0);
        f.clock.advance(1000);
        m.getReplicaList(k("a"));
        assertEquals(end + 5000, m.queryKey(k("a")).orElseThrow().softPinDeadlineMs());
        f.put("default-ttl", 100, ReplicateConfig.builder().softPin(SoftPinAction.ENABLE).build());
        assertEquals(f.clock.millis() + 1_800_000, m.queryKey(k("default-ttl")).orElseThrow().softPinDeadlineMs());
    }

    @Test
    void removeByRegexAndRemoveAllSkipLeasedObjectsUnlessForced() {
        f.mount("c1", "s1", 1 << 20);
        for (String key : List.of("kv-1", "kv-2", "hs-1", "hs-2")) {
            f.put(key, 100);
        }
        m.getReplicaList(k("kv-2"));
        assertEquals(1, m.removeByRegex("default", Pattern.compile("kv-.*"), false));
        assertEquals(2, m.removeAll("default", false));
        assertEquals(1, m.removeAll("default", true));
        assertEquals(0, m.stats().objects());
    }

    @Test
    @Timeout(120) // without the budget the match would run for hours: fail instead of hanging the build
    void aPatternThatBacktracksWithoutEndIsRefusedAndRemovesNothing() {
        f.mount("c1", "s1", 1 << 20);
        f.put("b", 100);
        for (int i = 0; i < 4; i++) {
            f.put("a".repeat(40) + i, 100); // "(.*a){20}b" backtracks for hours on each of these
        }
        assertError(ErrorCode.INVALID_PARAMS, () -> m.removeByRegex("default", Pattern.compile("(.*a){20}b"), true));
        assertEquals(5, m.stats().objects(), "nothing removed, even the key that matched before the budget ran out");
        assertEquals(1, m.removeByRegex("default", Pattern.compile("b"), true), "a sane pattern still works");
    }

    @Test
    void badInputIsRefusedWithAClearCodeAndChangesNothing() {
        f.mount("c1", "s1", 1 << 16);
        assertError(ErrorCode.INVALID_PARAMS, () -> m.putStart("c1", k("a"), 0, ReplicateConfig.DEFAULT, false));
        assertError(ErrorCode.INVALID_PARAMS, () -> m.putStart("c1", k("a"), -5, ReplicateConfig.DEFAULT, false));
        assertError(ErrorCode.INVALID_PARAMS, () -> m.putStart("c1", k("a"), (1 << 16) + 1, ReplicateConfig.DEFAULT, false));
        assertError(ErrorCode.INVALID_TTL, () -> m.putStart("c1", k("a"), 10,
                ReplicateConfig.builder().softPin(SoftPinAction.ENABLE).softPinTtlMs(86_400_001).build(), false));
        assertError(ErrorCode.INVALID_PARAMS, () -> m.putStart("", k("a"), 10, ReplicateConfig.DEFAULT, false));
        assertError(ErrorCode.SEGMENT_ALREADY_EXISTS, () -> f.mount("c1", "s1", 1 << 16));
        assertError(ErrorCode.SEGMENT_NOT_FOUND, () -> m.unmountSegment("c1", "nope"));
        assertError(ErrorCode.INVALID_PARAMS, () -> m.unmountSegment("other", "s1"));
        assertError(ErrorCode.OBJECT_NOT_FOUND, () -> m.remove(k("missing"), false));
        assertEquals(0, m.stats().usedBytes());
        assertEquals(0, m.stats().objects());
        assertEquals(0, m.stats().processingPuts());
        assertEquals(1, m.segments().size());
    }

    @Test
    void aPutWithNoSpaceFailsAtOnceWithNoAvailableHandle() {
        assertError(ErrorCode.NO_AVAILABLE_HANDLE, () -> m.putStart("c1", k("a"), 10, ReplicateConfig.DEFAULT, false));
        f.mount("c1", "s1", 4096);
        f.put("a", 4096);
        assertError(ErrorCode.NO_AVAILABLE_HANDLE, () -> m.putStart("c1", k("b"), 10, ReplicateConfig.DEFAULT, false));
        assertEquals(2, m.stats().failedPutsNoSpace());
        assertFalse(m.exists(k("b")));
    }

    @Test
    void badSettingsAreRefused() {
        assertThrows(StoreException.class, () -> m.settings().withEviction(0, 0.9));
        assertThrows(StoreException.class, () -> m.settings().withEviction(0.05, 1.5));
    }
}
