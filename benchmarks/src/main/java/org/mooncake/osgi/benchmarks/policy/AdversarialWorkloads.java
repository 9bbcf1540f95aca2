package org.mooncake.osgi.benchmarks.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * Workloads built to hurt a cost-aware policy, each at its own capacity:
 * <ul>
 * <li>{@code flood}: seed600 (session mode) plus, every 500 ms, a burst of 8 one-shot hidden
 *     states with the highest cost hint, never read again;</li>
 * <li>{@code long-gap}: 300 shared documents whose hidden states are re-read after 20-60 s, far
 *     past any grace, amid seed600 traffic;</li>
 * <li>{@code drift}: seed600 whose sessions bring ten extra images with a probability rising from
 *     0 to 0.9 (as the square of the run's progress): hidden share of new bytes from about 11% in the
 *     first quarter to 27% in the last;</li>
 * <li>{@code loop}: KV blocks read in a cycle 10% larger than the cache;</li>
 * <li>{@code noise}: seed600 with every cost hint off by up to +/-50% (savings count true costs);</li>
 * <li>{@code false-group-only}: seed600 whose connectors mark everything they write as read by
 *     their session only, also the public images and the shared prefix blocks that other sessions
 *     read: a group-only hint that lies for a fifth of the images and every shared block.</li>
 * </ul>
 */
public final class AdversarialWorkloads {
    /** A workload and the capacity, as a fraction of its unique bytes, it runs at. */
    public record Case(Workload workload, double capacityFraction) {
    }

    public static final List<String> NAMES = List.of("flood", "long-gap", "drift", "loop", "noise", "false-group-only");

    private AdversarialWorkloads() {
    }

    public static Case make(String name, int sessions, double scale, long seed) {
        return switch (name) {
            case "flood" -> new Case(flood(sessions, scale, seed), 0.12);
            case "long-gap" -> new Case(longGap(sessions, scale, seed), 0.12);
            case "drift" -> new Case(rename(SessionWorkload.generate(sessions, scale, SessionWorkload.Mode.SESSION, seed,
                    f -> 0.9 * f * f), "drift"), 0.12);
            case "loop" -> new Case(loop(scale), 1 / 1.1);
            case "noise" -> new Case(noise(sessions, scale, seed), 0.12);
            case "false-group-only" -> new Case(falseGroupOnly(sessions, scale, seed), 0.12);
            default -> throw new IllegalArgumentException("unknown adversarial workload " + name + "; one of " + NAMES);
        };
    }

    private static Workload rename(Workload w, String name) {
        return new Workload(name, w.requests());
    }

    private static Workload flood(int sessions, double scale, long seed) {
        Workload base = SessionWorkload.generate(sessions, scale, SessionWorkload.Mode.SESSION, seed);
        List<Request> all = new ArrayList<>(base.requests());
        long end = base.requests().getLast().timeMs();
        long size = Math.max(64, (long) (13.5 * 1024 * 1024 * scale) / 64 * 64);
        int n = 0;
        for (long t = 0; t < end; t += 500) {
            List<Access> burst = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                burst.add(new Access("flood-" + n++, ObjectDataType.HIDDEN_STATE, size, 640, 640, "flood", -1, false));
            }
            all.add(new Request(t, burst));
        }
        return Workload.of("flood", all);
    }

    private static Workload longGap(int sessions, double scale, long seed) {
        Workload base = SessionWorkload.generate(sessions, scale, SessionWorkload.Mode.SESSION, seed);
        List<Request> all = new ArrayList<>(base.requests());
        long end = base.requests().getLast().timeMs();
        Random rnd = new Random(seed ^ 0x5EED);
        long size = Math.max(64, (long) (4.2 * 1024 * 1024 * scale) / 64 * 64);
        for (int d = 0; d < 300; d++) {
            for (long t = rnd.nextInt(20_000); t < end; t += 20_000 + rnd.nextInt(40_001)) {
                // read by its own group only, and said so: the group's long pauses must not read as its end
                all.add(new Request(t, List.of(new Access("doc-" + d, ObjectDataType.HIDDEN_STATE, size, 175, 175, "doc-" + d,
                        -1, false, true))));
            }
        }
        return Workload.of("long-gap", all);
    }

    private static Workload loop(double scale) {
        long size = SessionWorkload.kvBlockBytes(scale);
        int objects = 2000;
        List<Request> all = new ArrayList<>();
        long t = 0;
        for (int pass = 0; pass < 6; pass++) {
            for (int i = 0; i < objects; i += 10) {
                List<Access> req = new ArrayList<>();
                for (int j = i; j < i + 10; j++) {
                    req.add(new Access("loop-" + j, ObjectDataType.KVCACHE, size, SessionWorkload.KV_COST_MS,
                            SessionWorkload.KV_COST_MS, "loop", j - i, false));
                }
                all.add(new Request(t, req));
                t += 50;
            }
        }
        return Workload.of("loop", all);
    }

    private static Workload noise(int sessions, double scale, long seed) {
        Random rnd = new Random(seed ^ 0x0015E);
        java.util.Map<String, Double> hintOf = new java.util.HashMap<>();
        // One estimate per object: a connector estimates once, when it writes.
        return SessionWorkload.generate(sessions, scale, SessionWorkload.Mode.SESSION, seed).mapAccesses("noise",
                a -> a.withHint(hintOf.computeIfAbsent(a.key(), k -> a.costMs() * (0.5 + rnd.nextDouble()))));
    }

    private static Workload falseGroupOnly(int sessions, double scale, long seed) {
        return SessionWorkload.generate(sessions, scale, SessionWorkload.Mode.SESSION, seed).mapAccesses("false-group-only",
                a -> a.withGroupOnly(a.group() != null));
    }
}
