package org.mooncake.osgi.policy.costaware;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.spi.eviction.AccessObserver;
import org.mooncake.osgi.store.spi.eviction.CandidateGroup;
import org.mooncake.osgi.store.spi.eviction.CandidateRanking;
import org.mooncake.osgi.store.spi.eviction.CandidateView;
import org.mooncake.osgi.store.spi.eviction.Candidates;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.eviction.EvictionRequest;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Ours: evicts what is worth least to keep, where the worth of an object is
 * {@code hit density x recompute cost / size}: the recompute time it is expected to save per
 * byte and per millisecond it stays. Hit density is learned online per data type, hit count and
 * idle age ({@link ReuseModel}); the cost is the put's hint, else a per-type default per MiB.
 * Among equal worth the least recently read goes first, and among objects read together the
 * newest write, so the tail of a KV prefix chain leaves before its head (a block is only useful
 * while every block before it is cached).
 *
 * Worth is compared in steps of {@code worth_resolution} (a factor): within a step the least
 * recently read goes first, so where the model sees no real difference the policy is LRU.
 *
 * <p>An object put as read by its group only ({@link CandidateView#groupOnly}) goes first, whatever
 * its worth, once its group has written nothing for longer than {@code group_end_quantile} of the
 * gaps after which groups wrote again ({@link GroupActivity#endAfterMs}): its reuse ended with
 * the group. The hint is checked, not trusted: such objects form a class of their own in the
 * model, and if more than {@code group_only_read_again_max} of them are read again after all, the
 * hint is ignored and they are ranked by the worth learned for that class.
 *
 * <p>Pass order is upstream's: soft-pinned objects only in pass 2, after the others. A round
 * ranks up to {@code scan_objects} of the oldest candidates, then continues in lease order. Observer calls run on request threads and only count; planning runs on the eviction
 * thread, which owns the model's tables.
 *
 * <p>Immediate: what it has learned lives as long as the bundle, not as long as some user
 * holds the service.
 */
@Component(service = {EvictionPolicy.class, CandidateRanking.class}, immediate = true,
        configurationPid = CostAwarePolicy.PID,
        property = {EvictionPolicy.NAME_PROPERTY + "=" + CostAwarePolicy.NAME,
                CandidateRanking.NAME_PROPERTY + "=" + CostAwarePolicy.NAME, "service.ranking:Integer=5"})
@Designate(ocd = CostAwareConfig.class)
public final class CostAwarePolicy implements EvictionPolicy, CandidateRanking, AccessObserver {
    public static final String NAME = "cost-aware";
    public static final String PID = "org.mooncake.osgi.policy.costaware";
    private static final double MIB = 1024.0 * 1024;
    /** Groups whose reuse is tracked; the least recently active beyond this are forgotten. */
    static final int GROUPS_TRACKED = 65_536;
    /**
     * Among equal worth, lease order (least recently used first); among equal leases (read
     * together) the newest write first: tails of prefix chains before their heads.
     */
    private static final Comparator<CandidateView> NEWEST_FIRST = Candidates.LEASE_THEN_NEWEST;
    private static final ObjectDataType[] TYPES = ObjectDataType.values();
    /** The score of an object whose group has ended: above any worth's, so it goes first. */
    static final double GROUP_ENDED = 1e30;
    /** Ended spells of group-only objects seen before their share read again is judged (as {@link GroupActivity#MIN_GAPS}). */
    static final double HINT_EVIDENCE = 64;

    private final ReuseModel model = new ReuseModel();
    private final GroupActivity groups = new GroupActivity();
    private final GhostList ghosts;
    private volatile CostAwareSettings settings;
    /** The quiet time after which a group counts as ended, as the last round learned it (read by observers). */
    private volatile long groupEndMs = Long.MAX_VALUE;
    /** The score of the last candidate pass 1 handed out, in the last round; eviction thread. */
    private double lastStop = Double.POSITIVE_INFINITY;
    /** Of ended groups' group-only objects, the share read again, as the last round saw it; NaN while too few ended. */
    private volatile double groupOnlyReadAgain = Double.NaN;

    /** With the defaults: what the benchmark and embedders use. */
    public CostAwarePolicy() {
        this(CostAwareSettings.DEFAULTS);
    }

    CostAwarePolicy(CostAwareSettings settings) {
        this.settings = settings;
        this.ghosts = new GhostList(settings.ghostEntries());
    }

    @Activate
    public CostAwarePolicy(CostAwareConfig config) {
        this(CostAwareSettings.from(config));
    }

    @Modified
    void modified(CostAwareConfig config) {
        CostAwareSettings next = CostAwareSettings.from(config);
        ghosts.resize(next.ghostEntries());
        settings = next;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String describe() {
        CostAwareSettings s = settings;
        long end = learnedEndMs(s);
        double readAgain = groupOnlyReadAgain;
        return String.format(Locale.ROOT, "%s worth_resolution=%s scan_objects=%d half_life_events=%d ghost_entries=%d (%d held) "
                + "group_end_quantile=%s (%s) group_only_read_again_max=%s (%s) learned_events=%d%s",
                NAME, s.worthResolution(), s.scanObjects(), s.halfLifeEvents(), s.ghostEntries(), ghosts.size(),
                s.groupEndQuantile(), s.groupEndQuantile() == 0 ? "off" : end == Long.MAX_VALUE ? "learning" : "ended after " + end + " ms",
                s.groupOnlyReadAgainMax(), Double.isNaN(readAgain) ? "hint followed, too few ended yet"
                        : String.format(Locale.ROOT, "%.1f%% read again, hint %s", 100 * readAgain,
                                follows(readAgain, s) ? "followed" : "ignored"),
                model.events(),
                s.defaultCostMsPerMiB().isEmpty() ? "" : " default_cost_ms_per_mib=" + s.defaultCostMsPerMiB());
    }

    /**
     * The learned quiet time after which a group has ended ({@code group_end_ms}, while known),
     * the share of ended groups' group-only objects read again ({@code group_only_read_again_share},
     * once enough have ended), whether the hint is followed, ghosts held and events learned.
     */
    @Override
    public Map<String, Double> learned() {
        CostAwareSettings s = settings;
        Map<String, Double> out = new LinkedHashMap<>();
        long end = learnedEndMs(s);
        if (end != Long.MAX_VALUE) {
            out.put("group_end_ms", (double) end);
        }
        double readAgain = groupOnlyReadAgain;
        if (!Double.isNaN(readAgain)) {
            out.put("group_only_read_again_share", readAgain);
        }
        out.put("group_only_hint_followed", follows(readAgain, s) ? 1.0 : 0.0);
        out.put("ghosts_held", (double) ghosts.size());
        out.put("learned_events", (double) model.events());
        return out;
    }

    /** The learned model: for tests. */
    ReuseModel model() {
        return model;
    }

    /** Evicted keys remembered now (for operators and tests). */
    public int ghostsHeld() {
        return ghosts.size();
    }

    // ---- learning: any thread ----

    @Override
    public void hit(CandidateView object, long previousAccessMs, long nowMs) {
        int cls = ReuseModel.objectClass(object.hitCount() - 1,
                groups.classOfThenHit(object.groupId(), object.groupOnly(), nowMs, groupEndMs));
        model.recordHit(object.dataType(), cls, nowMs - previousAccessMs);
    }

    @Override
    public void written(CandidateView object, long nowMs) {
        GhostList.Ghost g = ghosts.take(object.keyHash());
        if (g != null) {
            model.recordReturn(g.type(), g.objectClass(), nowMs - g.lastAccessMs(), g.idleAtEvictionMs());
            groups.hit(object.groupId(), nowMs);
        }
        groups.written(object.groupId(), nowMs);
    }

    /** One victim: a batch of one, so that both ways of being told learn through one piece of code. */
    @Override
    public void evicted(CandidateView object, long nowMs) {
        evicted(new CandidateView[] {object}, 1, nowMs);
    }

    /**
     * A round's victims, after the round took them: the same counts and ghosts as one call each,
     * with the group look-up once per run of one group, the model counted once per run of alike
     * victims, and the ghosts added stripe by stripe ({@link GhostList#addAll}).
     */
    @Override
    public void evicted(CandidateView[] victims, int count, long nowMs) {
        boolean ghosting = settings.ghostEntries() > 0;
        int[] hashes = ghosting ? new int[count] : null;
        byte[] types = ghosting ? new byte[count] : null;
        int[] classes = ghosting ? new int[count] : null;
        long[] lastAccess = ghosting ? new long[count] : null;
        long[] idle = ghosting ? new long[count] : null;
        GroupActivity.RunMemo memo = groups.new RunMemo();
        long end = groupEndMs;
        int runCell = -1;
        long run = 0;
        for (int i = 0; i < count; i++) {
            CandidateView v = victims[i];
            int cls = ReuseModel.objectClass(v.hitCount(), memo.classOf(v.groupId(), v.groupOnly(), nowMs, end));
            long last = v.lastAccessMs();
            long idleMs = nowMs - last;
            int cell = ReuseModel.eventCell(v.dataType(), cls, idleMs);
            if (cell != runCell) {
                if (run > 0) {
                    model.recordEvictions(runCell, run);
                }
                runCell = cell;
                run = 0;
            }
            run++;
            if (ghosting) {
                hashes[i] = v.keyHash();
                types[i] = (byte) v.dataType().ordinal();
                classes[i] = cls;
                lastAccess[i] = last;
                idle[i] = idleMs;
            }
        }
        if (run > 0) {
            model.recordEvictions(runCell, run);
        }
        if (ghosting) {
            ghosts.addAll(count, hashes, types, classes, lastAccess, idle);
        }
    }

    // ---- planning: the eviction thread ----

    /** Expected recompute ms saved per MiB and per ms held; lower is evicted first. */
    @Override
    public ToDoubleFunction<CandidateView> score(EvictionRequest request) {
        CostAwareSettings s = settings;
        model.refresh(s.halfLifeEvents(), s.priorEvents());
        groups.prune(GROUPS_TRACKED);
        groups.fadeReturnGaps();
        long now = request.nowMs();
        double log2Resolution = Math.log(s.worthResolution()) / Math.log(2);
        // by ordinal: this runs for every scanned candidate, a map look-up each was 6% of a round
        double[] costPerMiB = new double[TYPES.length];
        for (ObjectDataType t : TYPES) {
            costPerMiB[t.ordinal()] = s.costPerMiB(t);
        }
        GroupActivity.RunMemo memo = groups.new RunMemo();
        long groupEnd = learnedEndMs(s);
        groupEndMs = groupEnd;
        boolean followHint = followsGroupOnlyHint(s);
        return c -> {
            int groupClass = memo.classOf(c.groupId(), c.groupOnly(), now, groupEnd);
            int cls = ReuseModel.objectClass(c.hitCount(), groupClass);
            double mib = Math.max(1, c.sizeBytes()) / MIB;
            double cost = Double.isNaN(c.recomputeCostMs()) ? costPerMiB[c.dataType().ordinal()] * mib : c.recomputeCostMs();
            double worth = model.densityCountingResident(c.dataType(), cls, now - c.lastAccessMs()) * cost / mib;
            // after the density, which counts it as a resident of its class: it is one until it goes
            if (groupClass == GroupActivity.ENDED && followHint) {
                return GROUP_ENDED; // only its group reads it, and the group has most likely ended
            }
            // Worth in steps of worth_resolution: estimates are noisy, so the model overrides
            // recency only where it sees a real difference; within a step lease order decides.
            // getExponent is floor(log2) without a logarithm.
            return -Math.floor(Math.getExponent(Math.max(worth, Double.MIN_NORMAL)) / log2Resolution);
        };
    }

    /**
     * Whether ended groups' group-only objects go first: unless more than
     * {@code group_only_read_again_max} of those the model saw end their idle spell were read
     * again (a connector that marks shared objects group-only). Otherwise they are ranked by
     * the worth the model learns for them, as a class of their own. Eviction thread.
     */
    private boolean followsGroupOnlyHint(CostAwareSettings s) {
        double readAgain = model.readAgainShare(GroupActivity.ENDED, HINT_EVIDENCE);
        groupOnlyReadAgain = readAgain;
        return follows(readAgain, s);
    }

    /** Followed unless more than the allowed share was read again; a share not known yet (NaN) follows it. */
    private static boolean follows(double readAgain, CostAwareSettings s) {
        return !(readAgain > s.groupOnlyReadAgainMax());
    }

    /** The quiet time after which a group has ended, as learned now; {@link Long#MAX_VALUE} while learning or when off. */
    private long learnedEndMs(CostAwareSettings s) {
        return s.groupEndQuantile() == 0 ? Long.MAX_VALUE : groups.endAfterMs(s.groupEndQuantile());
    }

    @Override
    public Comparator<CandidateView> tieBreak() {
        return NEWEST_FIRST;
    }

    /**
     * Streams pass 1's candidates that score above where the last round's pass 1 stopped (see
     * {@link Candidates#rankedByScore(Iterator, ToDoubleFunction, Comparator, int, double,
     * java.util.function.DoubleConsumer)}): the worth of a round's last victim moves little from
     * one round to the next. After a round that went past its scan, or before the first, nothing
     * streams.
     */
    @Override
    public Iterator<CandidateView> plan(EvictionRequest request) {
        ToDoubleFunction<CandidateView> score = score(request);
        long now = request.nowMs();
        int scan = settings.scanObjects();
        List<Iterator<CandidateView>> plan = new ArrayList<>();
        List<CandidateGroup> groups = request.groups();
        plan.add(Candidates.rankedByScore(Candidates.eligibleInLeaseOrder(groups, request, c -> !c.softPinnedAt(now)),
                score, NEWEST_FIRST, scan, lastStop, s -> lastStop = s));
        if (request.softPinnedAllowed()) {
            plan.add(Candidates.rankedByScore(Candidates.eligibleInLeaseOrder(groups, request, c -> c.softPinnedAt(now)),
                    score, NEWEST_FIRST, scan));
        }
        return Candidates.concat(plan);
    }
}
