package org.mooncake.osgi.benchmarks.policy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.google.ortools.Loader;
import com.google.ortools.graph.MinCostFlow;
import com.google.ortools.graph.MinCostFlowBase;

/**
 * Upper bounds on the recompute time any policy could save on a workload (Berger, Beckmann,
 * Harchol-Balter, SIGMETRICS 2018). Keeping an object from one access to its next (a reuse
 * interval) takes its size on every step between and saves its cost. A step is a request, not
 * an access as in FOO: capacity is enforced between requests only, a relaxation (so still an
 * upper bound) that shrinks the flow graph from one node per access (2.6 x 10^5 in seed600) to
 * one per request (1.3 x 10^3), which took the solve from over ten minutes to about a second.
 *
 * <ul>
 * <li>FOO-L: the linear relaxation, solved exactly as FOO's min-cost flow: each interval sends
 *     its bytes from its first step to its last, either along the chain of steps (cached: the
 *     chain's arcs hold C bytes, cost 0) or over its own bypass arc (not cached: cost = the
 *     recompute cost per byte); the least miss cost gives the most saving. Solved with
 *     Google OR-Tools' min-cost flow. Flow units are 1/64 of the smallest object (at least 64 B);
 *     sizes round down and capacity up, so the bound stays an upper bound (looser by under 2%);
 *     costs are scaled to integers and the saving recomputed from the flows in doubles.</li>
 * <li>PFOO-L: space-time volume instead of per-step capacity: intervals by saving per byte-step,
 *     taken (fractionally) while their volume fits {@code C x steps}. Looser, O(n log n).</li>
 * </ul>
 * Neither knows watermarks, leases or prefix order, so they bound the policies from above.
 */
public final class OfflineBound {
    /** The finest flow unit: sizes are counted in units of min(object size) / 64, at least this. */
    static final long UNIT = 64;

    /** Keeping {@code size} bytes from access {@code from} to access {@code to} saves {@code cost}. */
    record Interval(int from, int to, long size, double cost) {
    }

    private final int steps;
    private final List<Interval> intervals;
    /** Savings no cache can miss: a key read again within the same request. */
    private final double free;

    public OfflineBound(Workload w) {
        this(w, false);
    }

    /**
     * With {@code perAccess}, a step is an access (FOO's own granularity), else a request. A put
     * or a remove (an access log's) ends the key's value: nothing kept before it can serve a read
     * after it. A put starts a new value, kept from the put to its next read at the put's size; a
     * read after a remove (and before any put) is compulsory, saved by no cache.
     */
    public OfflineBound(Workload w, boolean perAccess) {
        Map<String, Held> last = new HashMap<>();
        List<Interval> out = new ArrayList<>();
        double sameRequest = 0;
        int i = 0;
        for (Request r : w.requests()) {
            for (Access a : r.accesses()) {
                switch (a.op()) {
                    case REMOVE -> last.remove(a.id());
                    case PUT -> last.put(a.id(), new Held(i, a.sizeBytes()));
                    case GET -> {
                        Held prev = last.put(a.id(), new Held(i, a.sizeBytes()));
                        if (prev != null && prev.step() < i) {
                            out.add(new Interval(prev.step(), i, prev.size(), a.costMs()));
                        } else if (prev != null) {
                            sameRequest += a.costMs();
                        }
                    }
                }
                i += perAccess ? 1 : 0;
            }
            i += perAccess ? 0 : 1;
        }
        this.steps = i;
        this.intervals = out;
        this.free = sameRequest;
    }

    /** A key's value as last stored: at which step, how large. */
    private record Held(int step, long size) {
    }

    OfflineBound(int steps, List<Interval> intervals) {
        this.steps = steps;
        this.intervals = List.copyOf(intervals);
        this.free = 0;
    }

    /** The most recompute ms a cache of {@code capacity} bytes could save, by volume (PFOO-L). */
    public double pfooL(long capacity) {
        return free + pfooLOfIntervals(capacity);
    }

    private double pfooLOfIntervals(long capacity) {
        Interval[] byDensity = intervals.toArray(Interval[]::new);
        Arrays.sort(byDensity, (a, b) -> Double.compare(density(b), density(a)));
        double volume = (double) capacity * Math.max(0, steps - 1);
        double saved = 0;
        for (Interval iv : byDensity) {
            double v = (double) iv.size() * (iv.to() - iv.from());
            if (v <= volume) {
                saved += iv.cost();
                volume -= v;
            } else {
                saved += iv.cost() * volume / v;
                break;
            }
        }
        return saved;
    }

    private static double density(Interval iv) {
        return iv.cost() / ((double) iv.size() * (iv.to() - iv.from()));
    }

    /** The most recompute ms a cache of {@code capacity} bytes could save, fractionally (FOO-L). */
    public double fooL(long capacity) {
        return free + fooLOfIntervals(capacity);
    }

    private double fooLOfIntervals(long capacity) {
        if (steps < 2 || intervals.isEmpty()) {
            return 0;
        }
        if (maxLoad() <= capacity) {
            // Every interval fits at every step: nothing to decide.
            return intervals.stream().mapToDouble(Interval::cost).sum();
        }
        Loader.loadNativeLibraries();
        long minSize = intervals.stream().mapToLong(Interval::size).min().orElse(UNIT);
        long unit = Math.max(UNIT, minSize / 64);
        long cap = (capacity + unit - 1) / unit;
        double maxPerUnit = 0;
        for (Interval iv : intervals) {
            maxPerUnit = Math.max(maxPerUnit, perUnit(iv, unit));
        }
        // Integer costs: as fine as the solver's overflow checks allow.
        for (double scale = 1e6 / maxPerUnit; scale > 1e-3; scale /= 10) {
            MinCostFlow flow = new MinCostFlow(steps, steps - 1 + intervals.size());
            for (int t = 0; t + 1 < steps; t++) {
                flow.addArcWithCapacityAndUnitCost(t, t + 1, cap, 0);
            }
            long[] supply = new long[steps];
            int[] arcs = new int[intervals.size()];
            long[] units = new long[intervals.size()];
            for (int k = 0; k < arcs.length; k++) {
                Interval iv = intervals.get(k);
                units[k] = units(iv, unit);
                // The bypass: bytes not cached between the two accesses, paid for as a miss.
                arcs[k] = flow.addArcWithCapacityAndUnitCost(iv.from(), iv.to(), units[k], Math.round(perUnit(iv, unit) * scale));
                supply[iv.from()] += units[k];
                supply[iv.to()] -= units[k];
            }
            for (int t = 0; t < steps; t++) {
                flow.setNodeSupply(t, supply[t]);
            }
            MinCostFlowBase.Status status = flow.solve();
            if (status == MinCostFlowBase.Status.OPTIMAL) {
                double saved = 0;
                for (int k = 0; k < arcs.length; k++) {
                    saved += (units[k] - flow.getFlow(arcs[k])) * perUnit(intervals.get(k), unit);
                }
                flow.delete();
                return saved;
            }
            flow.delete();
            if (status != MinCostFlowBase.Status.BAD_COST_RANGE) {
                throw new IllegalStateException("min-cost flow failed: " + status);
            }
        }
        throw new IllegalStateException("min-cost flow: costs out of the solver's range at every scale");
    }

    /** The most bytes all intervals would hold at one step. */
    long maxLoad() {
        long[] delta = new long[steps + 1];
        for (Interval iv : intervals) {
            delta[iv.from()] += iv.size();
            delta[iv.to()] -= iv.size();
        }
        long load = 0;
        long max = 0;
        for (long d : delta) {
            load += d;
            max = Math.max(max, load);
        }
        return max;
    }

    private static long units(Interval iv, long unit) {
        return Math.max(1, iv.size() / unit);
    }

    private static double perUnit(Interval iv, long unit) {
        return iv.cost() / units(iv, unit);
    }
}
