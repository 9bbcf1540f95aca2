package org.mooncake.osgi.benchmarks.policy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.mooncake.osgi.store.api.ObjectDataType;

/** A named, time-ordered request sequence with its compulsory reads marked. */
public record Workload(String name, List<Request> requests) {

    /**
     * Sorts by time (stable) and marks each read of a key that holds no value: never read or put
     * before, or removed since. No cache could hit such a read (a compulsory miss); a read after a
     * put could.
     */
    public static Workload of(String name, List<Request> unordered) {
        List<Request> sorted = new ArrayList<>(unordered);
        sorted.sort(Comparator.comparingLong(Request::timeMs));
        Set<String> live = new HashSet<>();
        List<Request> out = new ArrayList<>(sorted.size());
        for (Request r : sorted) {
            List<Access> marked = new ArrayList<>(r.accesses().size());
            for (Access a : r.accesses()) {
                switch (a.op()) {
                    case GET -> marked.add(a.withFirst(live.add(a.id())));
                    case PUT -> {
                        live.add(a.id());
                        marked.add(a.withFirst(false));
                    }
                    case REMOVE -> {
                        live.remove(a.id());
                        marked.add(a.withFirst(false));
                    }
                }
            }
            out.add(new Request(r.timeMs(), marked));
        }
        return new Workload(name, List.copyOf(out));
    }

    /** Whether any access is a put or a remove (an access log's), not a read. */
    public boolean hasChanges() {
        return requests.stream().anyMatch(r -> r.accesses().stream().anyMatch(a -> !a.isRead()));
    }

    /** The same accesses with no group-only hints: what a store hears from connectors that do not pass them. */
    public Workload withoutGroupOnlyHints() {
        return mapAccesses(name, a -> a.withGroupOnly(false));
    }

    /**
     * Every access passed through {@code f}, in order (so {@code f} may keep state), at the same
     * times: {@code f} changes what connectors say, never which key is read when.
     */
    Workload mapAccesses(String newName, java.util.function.UnaryOperator<Access> f) {
        List<Request> mapped = new ArrayList<>(requests.size());
        for (Request r : requests) {
            List<Access> accesses = new ArrayList<>(r.accesses().size());
            for (Access a : r.accesses()) {
                accesses.add(f.apply(a));
            }
            mapped.add(new Request(r.timeMs(), accesses));
        }
        return new Workload(newName, List.copyOf(mapped));
    }

    /** Reads; puts and removes are not counted. */
    public long accessCount() {
        return requests.stream().mapToLong(r -> r.accesses().stream().filter(Access::isRead).count()).sum();
    }

    /** Every operation: reads, puts and removes. */
    public long operationCount() {
        return requests.stream().mapToLong(r -> r.accesses().size()).sum();
    }

    /**
     * The segment size for a capacity given as a fraction of {@link #uniqueBytes}: whole pages,
     * at least 1 MiB. The policy benchmark and the loss anatomy size their stores alike with it.
     */
    public long capacityBytes(double fraction) {
        return Math.max(1 << 20, (long) (uniqueBytes() * fraction) / 4096 * 4096);
    }

    /**
     * Bytes of all distinct objects, each at the largest size it had (an overwrite may change it):
     * the yardstick capacities are given in.
     */
    public long uniqueBytes() {
        Map<String, Long> sizes = new HashMap<>();
        for (Request r : requests) {
            for (Access a : r.accesses()) {
                if (a.op() != Access.Op.REMOVE) {
                    sizes.merge(a.id(), a.sizeBytes(), Math::max);
                }
            }
        }
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Facts to compare with the reference generator's: counts, bytes and costs per type, reuse. */
    public Map<String, Object> summary() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("requests", requests.size());
        s.put("duration_s", requests.isEmpty() ? 0 : (requests.getLast().timeMs() - requests.getFirst().timeMs()) / 1000.0);
        Map<ObjectDataType, Map<String, Long>> objects = new LinkedHashMap<>();
        Map<String, Integer> reads = new HashMap<>();
        Map<String, Access> firstOf = new HashMap<>();
        long puts = 0;
        long removes = 0;
        for (Request r : requests) {
            for (Access a : r.accesses()) {
                switch (a.op()) {
                    case GET -> {
                        reads.merge(a.id(), 1, Integer::sum);
                        firstOf.putIfAbsent(a.id(), a);
                    }
                    case PUT -> puts++;
                    case REMOVE -> removes++;
                }
            }
        }
        double hiddenCost = 0;
        double allCost = 0;
        for (Access a : firstOf.values()) {
            Map<String, Long> t = objects.computeIfAbsent(a.type(), k -> new LinkedHashMap<>());
            t.merge("objects", 1L, Long::sum);
            t.merge("bytes", a.sizeBytes(), Long::sum);
            t.merge("reads", (long) reads.get(a.id()), Long::sum);
            t.merge("read_once", reads.get(a.id()) == 1 ? 1L : 0L, Long::sum);
            allCost += a.costMs();
            hiddenCost += a.type() == ObjectDataType.HIDDEN_STATE ? a.costMs() : 0;
        }
        s.put("by_type", objects);
        s.put("unique_bytes", uniqueBytes());
        s.put("hidden_share_of_distinct_cost", allCost == 0 ? 0 : hiddenCost / allCost);
        if (puts + removes > 0) {
            s.put("puts", puts);
            s.put("removes", removes);
        }
        return s;
    }
}
