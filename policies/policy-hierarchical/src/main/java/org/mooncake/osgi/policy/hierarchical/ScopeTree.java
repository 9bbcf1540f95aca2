package org.mooncake.osgi.policy.hierarchical;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * The validated shape of the hierarchy: its levels from the root down, the leaf ranking, and the
 * quotas of scopes. A quota names a path from the root, {@code tenant=acme/type=HIDDEN_STATE},
 * one step per level in level order; {@code *} matches any value at its level.
 */
record ScopeTree(List<ScopeLevel> levels, String ranking, List<Quota> quotas, int scanObjects) {

    /** A share of capacity a matching scope may hold before it gives up objects first. */
    record Quota(List<String> path, double ratio) {
        boolean matches(List<String> scopePath) {
            if (scopePath.size() != path.size()) {
                return false;
            }
            for (int i = 0; i < path.size(); i++) {
                if (!path.get(i).equals("*") && !path.get(i).equals(scopePath.get(i))) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            return String.join("/", path) + "=" + ratio;
        }
    }

    ScopeTree {
        levels = List.copyOf(levels);
        quotas = List.copyOf(quotas);
        Set<ScopeLevel> seen = EnumSet.noneOf(ScopeLevel.class);
        for (ScopeLevel l : levels) {
            if (!seen.add(l)) {
                throw new IllegalArgumentException("levels: " + l.label() + " appears twice");
            }
        }
        if (ranking == null || ranking.isBlank()) {
            throw new IllegalArgumentException("ranking is required");
        }
        if (scanObjects < 1) {
            throw new IllegalArgumentException("scan_objects must be >= 1, was " + scanObjects);
        }
    }

    static ScopeTree from(HierarchicalConfig c) {
        return parse(c.levels(), c.ranking(), c.quotas(), c.scan_objects());
    }

    static ScopeTree parse(String[] levelNames, String ranking, String[] quotaEntries, int scanObjects) {
        List<ScopeLevel> levels = new ArrayList<>();
        for (String s : levelNames == null ? new String[0] : levelNames) {
            if (!s.isBlank()) {
                levels.add(ScopeLevel.parse(s));
            }
        }
        List<Quota> quotas = new ArrayList<>();
        for (String e : quotaEntries == null ? new String[0] : quotaEntries) {
            quotas.add(parseQuota(e.trim(), levels));
        }
        return new ScopeTree(levels, ranking.trim(), quotas, scanObjects);
    }

    /** {@code level=value/level=value=ratio}: the last {@code =} separates the ratio. */
    private static Quota parseQuota(String entry, List<ScopeLevel> levels) {
        int eq = entry.lastIndexOf('=');
        String path = eq < 0 ? "" : entry.substring(0, eq);
        double ratio;
        try {
            ratio = Double.parseDouble(entry.substring(eq + 1));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("quota '" + entry + "' must end with =ratio");
        }
        if (!(ratio > 0 && ratio <= 1)) {
            throw new IllegalArgumentException("quota '" + entry + "': ratio must be in (0, 1]");
        }
        String[] steps = path.split("/");
        if (path.isEmpty() || steps.length > levels.size()) {
            throw new IllegalArgumentException("quota '" + entry + "' must name 1 to " + levels.size()
                    + " levels, in the order " + levels.stream().map(ScopeLevel::label).toList());
        }
        List<String> values = new ArrayList<>();
        for (int i = 0; i < steps.length; i++) {
            String[] kv = steps[i].split("=", 2);
            if (kv.length != 2 || ScopeLevel.parse(kv[0]) != levels.get(i)) {
                throw new IllegalArgumentException("quota '" + entry + "': step " + (i + 1) + " must be "
                        + levels.get(i).label() + "=<value>");
            }
            values.add(canonical(levels.get(i), kv[1].trim()));
        }
        return new Quota(values, ratio);
    }

    private static String canonical(ScopeLevel level, String value) {
        if (value.equals("*")) {
            return value;
        }
        return switch (level) {
            case TENANT -> value;
            case TYPE -> {
                try {
                    yield ObjectDataType.parse(value).name();
                } catch (RuntimeException e) {
                    throw new IllegalArgumentException("unknown data type '" + value + "': " + e.getMessage(), e);
                }
            }
            case PRIORITY -> {
                String v = value.toLowerCase(Locale.ROOT);
                if (!v.equals(ScopeLevel.UNPINNED) && !v.equals(ScopeLevel.SOFT_PINNED)) {
                    throw new IllegalArgumentException("priority must be unpinned or soft-pinned, was " + value);
                }
                yield v;
            }
        };
    }

    /** The quotas as they are configured, each level named. */
    String describeQuotas() {
        List<String> out = new ArrayList<>();
        for (Quota q : quotas) {
            List<String> steps = new ArrayList<>();
            for (int i = 0; i < q.path().size(); i++) {
                steps.add(levels.get(i).label() + "=" + q.path().get(i));
            }
            out.add(String.join("/", steps) + "=" + q.ratio());
        }
        return out.toString();
    }

    boolean hasQuotas() {
        return !quotas.isEmpty();
    }

    /** The quota of the scope at {@code path}, the first matching entry; NaN when none. */
    double quotaOf(List<String> path) {
        for (Quota q : quotas) {
            if (q.matches(path)) {
                return q.ratio();
            }
        }
        return Double.NaN;
    }
}
