package org.mooncake.osgi.transport.tcp;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

import org.mooncake.osgi.store.master.DataGrant;
import org.mooncake.osgi.store.master.GrantKey;

/**
 * The segment server's check of each request's grant: whether a request to a segment exposed with
 * a key may go on, judged by {@link DataGrant#check} at this node's clock when the request is
 * read; refusals counted by reason ({@code no_grant}, or what the check found, in lower case) and
 * logged at most every {@value CountedWarnings#EVERY_SECONDS} s.
 */
final class GrantGate {
    static final String NO_GRANT = "no_grant";
    private static final String PERMITTED = reason(DataGrant.Check.PERMITTED);

    private final boolean checked;
    private final LongSupplier clockMs;
    private final CountedWarnings denials;

    /** {@code checked} false ({@code grants.checked=false}): every request goes on. */
    GrantGate(boolean checked, LongSupplier clockMs, System.Logger log) {
        this.checked = checked;
        this.clockMs = clockMs;
        this.denials = new CountedWarnings(log, reasons());
    }

    private static String[] reasons() {
        List<String> reasons = new ArrayList<>(List.of(NO_GRANT));
        for (DataGrant.Check c : DataGrant.Check.values()) {
            if (c != DataGrant.Check.PERMITTED) {
                reasons.add(reason(c));
            }
        }
        return reasons.toArray(String[]::new);
    }

    private static String reason(DataGrant.Check c) {
        return c.name().toLowerCase(Locale.ROOT);
    }

    /** Whether {@code r}, to a segment exposed with {@code key} (null: none), is refused; counted and logged if so. */
    boolean denies(GrantKey key, Wire.Request r, String from) {
        if (key == null || !checked) {
            return false;
        }
        boolean write = r.op() == Wire.WRITE;
        String reason = r.grant() == null ? NO_GRANT
                : reason(r.grant().check(key, r.segment(), write, r.offset(), r.length(), clockMs.getAsLong()));
        if (reason.equals(PERMITTED)) {
            return false;
        }
        denials.record(reason, () -> "refused " + (write ? "WRITE" : "READ") + " of " + r.length() + " bytes at "
                + r.offset() + " of segment " + r.segment() + " from " + from + ": " + switch (reason) {
                    case NO_GRANT -> "no grant";
                    case "forged" -> "grant forged (its mac does not match: another segment, key or fields)";
                    case "expired" -> "grant expired";
                    case "wrong_operation" -> "grant for the other operation";
                    default -> "range outside the grant";
                } + " [" + reason + "]");
        return true;
    }

    /** Requests refused so far, by reason (every reason present, from 0). */
    Map<String, Long> denied() {
        return denials.counts();
    }
}
