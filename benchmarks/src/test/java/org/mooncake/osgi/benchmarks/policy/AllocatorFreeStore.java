package org.mooncake.osgi.benchmarks.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.spi.eviction.AccessObserver;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;

/**
 * A store as Caffeine models one, to replay a workload through a policy with nothing else in
 * the way: bytes with no allocator (so no fragmentation and no room-making), no leases, a round
 * as soon as a write-back passes capacity that frees exactly the excess (the smallest round
 * there is). The policy sees the SPI's events and requests as the master would send them.
 */
final class AllocatorFreeStore {
    /** A resident object as the policy sees it; its lease ends at its last access. */
    private record View(ObjectKey key, long sequence, long sizeBytes, long lastAccessMs, long hitCount)
            implements CandidateView {
        @Override
        public ObjectDataType dataType() {
            return ObjectDataType.KVCACHE;
        }

        @Override
        public double recomputeCostMs() {
            return Double.NaN;
        }

        @Override
        public long softPinDeadlineMs() {
            return 0;
        }

        @Override
        public long leaseExpiresAtMs() {
            return lastAccessMs;
        }

        @Override
        public long putTimeMs() {
            return lastAccessMs;
        }

        @Override
        public String groupId() {
            return null;
        }
    }

    private AllocatorFreeStore() {
    }

    /** Hits over the reads that could hit, for {@code policy} (which must observe) at {@code capacityBytes}. */
    static double nonCompulsoryHitRatio(Workload w, EvictionPolicy policy, long capacityBytes) {
        AccessObserver observer = (AccessObserver) policy;
        Map<ObjectKey, View> resident = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        long used = 0;
        long sequence = 0;
        long hits = 0;
        long possible = 0;
        long now = 1;
        for (Request r : w.requests()) {
            for (Access a : r.accesses()) {
                if (!a.isRead()) {
                    continue;
                }
                now++;
                ObjectKey key = ObjectKey.of(a.id());
                boolean first = seen.add(a.id());
                View v = resident.get(key);
                if (v != null) {
                    View read = new View(key, v.sequence, v.sizeBytes, now, v.hitCount + 1);
                    resident.put(key, read);
                    observer.hit(read, v.lastAccessMs, now);
                } else {
                    View written = new View(key, ++sequence, a.sizeBytes(), now, 0);
                    resident.put(key, written);
                    used += a.sizeBytes();
                    observer.written(written, now);
                    used -= evict(policy, observer, resident, used - capacityBytes, capacityBytes, used, now);
                }
                if (!first) {
                    possible++;
                    hits += v != null ? 1 : 0;
                }
            }
        }
        return possible == 0 ? 0 : (double) hits / possible;
    }

    /** One round that frees at least {@code excess} bytes if it is positive; returns the bytes freed. */
    private static long evict(EvictionPolicy policy, AccessObserver observer, Map<ObjectKey, View> resident, long excess,
            long capacity, long used, long now) {
        if (excess <= 0) {
            return 0;
        }
        CandidateGroup group = new CandidateGroup() {
            @Override
            public String tenant() {
                return ObjectKey.DEFAULT_TENANT;
            }

            @Override
            public ObjectDataType dataType() {
                return ObjectDataType.KVCACHE;
            }

            @Override
            public long objectCount() {
                return resident.size();
            }

            @Override
            public long bytes() {
                return used;
            }

            @Override
            public Iterator<CandidateView> inLeaseOrder() {
                // read only if the policy's own order runs out: a copy, taken then, in write order
                return new Iterator<>() {
                    private Iterator<CandidateView> copy;

                    private Iterator<CandidateView> copy() {
                        if (copy == null) {
                            copy = new ArrayList<CandidateView>(resident.values()).iterator();
                        }
                        return copy;
                    }

                    @Override
                    public boolean hasNext() {
                        return copy().hasNext();
                    }

                    @Override
                    public CandidateView next() {
                        return copy().next();
                    }
                };
            }
        };
        EvictionRequest request = new EvictionRequest(now + 1, 1, capacity, used, excess, (double) excess / capacity,
                List.of(group));
        long freed = 0;
        for (Iterator<CandidateView> plan = policy.plan(request); freed < excess && plan.hasNext();) {
            CandidateView victim = plan.next();
            if (resident.get(victim.key()) == victim) {
                resident.remove(victim.key());
                freed += victim.sizeBytes();
                observer.evicted(victim, now);
            }
        }
        return freed;
    }
}
