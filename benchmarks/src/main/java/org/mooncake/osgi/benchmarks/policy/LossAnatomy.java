package org.mooncake.osgi.benchmarks.policy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import org.mooncake.osgi.benchmarks.BenchArgs;
import org.mooncake.osgi.benchmarks.Progress;
import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * Where a policy's savings are lost: every read but a key's first (which can never hit), by
 * data type, by how many reads of the key came before, by the time since the previous one, by
 * whether that previous read came from another group (a session reading what another wrote:
 * a shared prefix, a public image) and by whether it missed and its write-back found no room. Each figure is a share of the recompute cost of all those
 * reads, so the lost shares add up to 100 minus the benchmark's primary saving figure.
 *
 * <p>{@code ./mooncake bench anatomy [--policy P] [--mode session|full_history] [--capacity F]
 * [--seeds K] [--sessions N] [--out DIR]} runs seed600, prints the tables and writes them with
 * their chart ({@link AnatomyChart}) to the output folder; seeds are pooled.
 */
public final class LossAnatomy {
    enum Nth {
        SECOND("2nd"), THIRD("3rd"), LATER("4th or later");

        final String label;

        Nth(String label) {
            this.label = label;
        }
    }

    enum Gap {
        UNDER_1S("< 1 s"), TO_5S("1–5 s"), TO_20S("5–20 s"), OVER_20S("> 20 s");

        final String label;

        Gap(String label) {
            this.label = label;
        }

        static Gap of(long ms) {
            return ms < 1_000 ? UNDER_1S : ms < 5_000 ? TO_5S : ms < 20_000 ? TO_20S : OVER_20S;
        }
    }

    /**
     * One class of reads; {@code afterDrop}: the key's previous read missed and its write-back
     * found no room (a large object needs contiguous free space that a round need not make).
     */
    record Cell(ObjectDataType type, Nth nth, Gap gap, boolean otherGroup, boolean afterDrop) {
    }

    /** Reads of a class, those that hit, and their recompute cost. */
    static final class Tally {
        long reads;
        long hits;
        double costMs;
        double hitCostMs;

        void add(boolean hit, double cost) {
            reads++;
            costMs += cost;
            if (hit) {
                hits++;
                hitCostMs += cost;
            }
        }

        void add(Tally t) {
            reads += t.reads;
            hits += t.hits;
            costMs += t.costMs;
            hitCostMs += t.hitCostMs;
        }

        double lostMs() {
            return costMs - hitCostMs;
        }
    }

    private record Previous(long timeMs, String group, int reads, boolean dropped) {
    }

    private final Map<Cell, Tally> cells = new HashMap<>();
    private final Tally all = new Tally();

    /**
     * An observer for one run, adding to this anatomy's tallies: each run starts with no key
     * read (seeds reuse key names, and a key's first read in a run is compulsory).
     */
    Simulation.AccessObserver newRun() {
        Map<String, Previous> previous = new HashMap<>();
        return new Simulation.AccessObserver() {
            @Override
            public void accessed(Access a, boolean hit, long timeMs) {
                Previous p = previous.get(a.key());
                previous.put(a.key(), new Previous(timeMs, a.group(), p == null ? 1 : p.reads() + 1, false));
                if (p != null) {
                    Nth nth = p.reads() == 1 ? Nth.SECOND : p.reads() == 2 ? Nth.THIRD : Nth.LATER;
                    Cell c = new Cell(a.type(), nth, Gap.of(timeMs - p.timeMs()), !java.util.Objects.equals(a.group(), p.group()),
                            p.dropped());
                    cells.computeIfAbsent(c, k -> new Tally()).add(hit, a.costMs());
                    all.add(hit, a.costMs());
                }
            }

            @Override
            public void writeBackDropped(Access a, long timeMs) {
                previous.computeIfPresent(a.key(), (k, p) -> new Previous(p.timeMs(), p.group(), p.reads(), true));
            }
        };
    }

    /** Every read but the first of each key. */
    Tally total() {
        return all;
    }

    /** The reads grouped by one property of their class, sorted by it. */
    <K> Map<K, Tally> by(Function<Cell, K> property) {
        return by(c -> true, property);
    }

    /** The reads of the classes {@code which} takes, grouped by one property, sorted by it. */
    <K> Map<K, Tally> by(java.util.function.Predicate<Cell> which, Function<Cell, K> property) {
        Map<K, Tally> out = new java.util.TreeMap<>();
        cells.forEach((c, t) -> {
            if (which.test(c)) {
                out.computeIfAbsent(property.apply(c), k -> new Tally()).add(t);
            }
        });
        return out;
    }

    /** Tables by type, by read number, by gap and by group, then type with read number and with gap. */
    String report() {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%,d reads after a key's first, %.0f ms of recompute; %.2f%% saved, %.2f%% lost%n",
                all.reads, all.costMs, 100 * all.hitCostMs / all.costMs, 100 * all.lostMs() / all.costMs));
        table(out, "data type", Cell::type, ObjectDataType::name);
        table(out, "read", Cell::nth, n -> n.label);
        table(out, "since the previous read", Cell::gap, g -> g.label);
        table(out, "previous read", Cell::otherGroup, other -> other ? "by another group" : "by the same group");
        table(out, "previous read's write-back", Cell::afterDrop, LossAnatomy::writeBack);
        table(out, "data type, previous write-back", c -> new Two<>(c.type(), c.afterDrop()),
                k -> k.first().name() + ", " + writeBack(k.second()));
        table(out, "data type, read", c -> new Two<>(c.type(), c.nth()), k -> k.first().name() + ", " + k.second().label);
        table(out, "data type, since the previous read", c -> new Two<>(c.type(), c.gap()),
                k -> k.first().name() + ", " + k.second().label);
        return out.toString();
    }

    private static String writeBack(boolean dropped) {
        return dropped ? "found no room" : "stored, or a hit";
    }

    /** Two properties as one key, ordered by the first, then the second. */
    private record Two<A extends Comparable<A>, B extends Comparable<B>>(A first, B second) implements Comparable<Two<A, B>> {
        @Override
        public int compareTo(Two<A, B> o) {
            int c = first.compareTo(o.first);
            return c != 0 ? c : second.compareTo(o.second);
        }
    }

    /** One table, its rows in the order of {@code key} (enums in their declared order), each named by {@code label}. */
    private <K extends Comparable<? super K>> void table(StringBuilder out, String title, Function<Cell, K> key,
            Function<K, String> label) {
        out.append(String.format(Locale.ROOT, "%n| %s | reads | hit | share of cost | lost (points) |%n|---|---:|---:|---:|---:|%n", title));
        by(key).forEach((k, t) -> out.append(String.format(Locale.ROOT, "| %s | %,d | %.1f%% | %.2f%% | %.2f |%n",
                label.apply(k), t.reads, 100.0 * t.hits / t.reads, 100 * t.costMs / all.costMs, 100 * t.lostMs() / all.costMs)));
    }

    /** The options, checked before any run. */
    record Options(String policy, SessionWorkload.Mode mode, double capacity, int seeds, int sessions, boolean hints, Path out) {
        static final String USAGE = "usage: mooncake bench anatomy [--policy P] [--mode session|full_history] [--capacity F] [--seeds K] [--sessions N]"
                + " [--group-only-hints true|false] [--out DIR]   (tables and chart: DIR/anatomy-POLICY-MODE.{md,svg,png},"
                + " DIR docs/benchmarks)";

        static Options parse(String[] args) {
            BenchArgs.helpIfAsked(args, USAGE);
            String policy = BenchPolicies.COST_AWARE;
            SessionWorkload.Mode mode = SessionWorkload.Mode.SESSION;
            double capacity = 0.10;
            int seeds = 3;
            int sessions = 600;
            boolean hints = true;
            String out = "docs/benchmarks";
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String v = BenchArgs.valueOf(args, i++);
                switch (a) {
                    case "--policy" -> policy = v;
                    case "--mode" -> mode = BenchArgs.choice(a, v, SessionWorkload.Mode.class);
                    case "--capacity" -> capacity = BenchArgs.number(a, v, 0, 1);
                    case "--seeds" -> seeds = BenchArgs.wholeNumber(a, v, 1, 100);
                    case "--sessions" -> sessions = BenchArgs.wholeNumber(a, v, 1, 100_000);
                    case "--group-only-hints" -> hints = BenchArgs.bool(a, v);
                    case "--out" -> out = v;
                    default -> throw new BenchArgs.Mistake("unknown option " + a + "; " + USAGE);
                }
            }
            if (!BenchPolicies.ALL.contains(policy)) {
                throw new BenchArgs.Mistake("--policy takes one of " + BenchPolicies.ALL + ", was '" + policy + "'");
            }
            return new Options(policy, mode, capacity, seeds, sessions, hints, BenchArgs.outputDirectory("--out", out));
        }
    }

    public static void main(String[] args) throws IOException {
        Options o = BenchArgs.orExit("bench anatomy", () -> Options.parse(args));
        LossAnatomy anatomy = new LossAnatomy();
        List<Workload> workloads = new ArrayList<>();
        for (int seed = 1; seed <= o.seeds(); seed++) {
            Workload generated = SessionWorkload.generate(o.sessions(), 0.006, o.mode(), seed);
            workloads.add(o.hints() ? generated : generated.withoutGroupOnlyHints());
        }
        try (Progress progress = Progress.start("bench anatomy", workloads.stream().mapToLong(Workload::accessCount).sum())) {
            for (int seed = 1; seed <= o.seeds(); seed++) {
                Workload w = workloads.get(seed - 1);
                long bytes = w.capacityBytes(o.capacity());
                progress.note(String.format(Locale.ROOT, "%s, %s, seed %d, capacity %.0f%% (%,d B)", o.policy(), w.name(), seed,
                        100 * o.capacity(), bytes));
                Simulation.AccessObserver tally = anatomy.newRun();
                Simulation.run(w, BenchPolicies.make(o.policy()), Simulation.Settings.of(bytes), new Simulation.AccessObserver() {
                    @Override
                    public void accessed(Access a, boolean hit, long timeMs) {
                        tally.accessed(a, hit, timeMs);
                        progress.step(1);
                    }

                    @Override
                    public void writeBackDropped(Access a, long timeMs) {
                        tally.writeBackDropped(a, timeMs);
                    }
                });
            }
        }
        String title = String.format(Locale.ROOT, "%s on %s at %.0f%% of unique bytes, seeds 1–%d pooled", o.policy(),
                workloads.getFirst().name(), 100 * o.capacity(), o.seeds());
        String report = title + "\n\n" + anatomy.report();
        System.out.print(report);
        Path base = o.out().resolve("anatomy-" + o.policy() + "-" + o.mode().label());
        Files.writeString(base.resolveSibling(base.getFileName() + ".md"), report);
        List<Path> charts = AnatomyChart.write(AnatomyChart.of(anatomy, "Where " + title.replaceFirst(",.*", "") + " loses its savings"), base);
        System.err.println("[bench anatomy] wrote " + base.getFileName() + ".md beside " + charts.stream()
                .map(p -> p.getFileName().toString()).toList() + " in " + o.out());
    }
}
