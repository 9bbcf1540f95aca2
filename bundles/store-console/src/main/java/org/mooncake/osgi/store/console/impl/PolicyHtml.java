package org.mooncake.osgi.store.console.impl;

import java.util.List;
import java.util.Map;

import org.mooncake.osgi.store.master.MasterStats;

/**
 * The active eviction policy, what it has learned, and the control that selects another: choosing
 * one shows a confirmation (a GET, so nothing changes yet), and only its button posts the change,
 * with the page's token.
 */
final class PolicyHtml {
    /** Query and form parameter naming the policy to switch to; "" is the highest-ranked. */
    static final String POLICY_PARAM = "policy";
    /** Form parameter carrying the token that proves the post came from this page. */
    static final String TOKEN_PARAM = "token";

    private PolicyHtml() {
    }

    static String label(String policy) {
        return policy.isEmpty() ? "the highest-ranked policy" : policy;
    }

    static void active(Html h, MasterStats s, StoreView.ActivePolicy p, String pluginRoot) {
        h.section("policy", "Eviction policy");
        h.table("policy-table", "active", "settings", "available");
        h.row().cell("policy-active", p.name()).cell("policy-settings", p.settings())
                .cell("policy-available", String.join(", ", s.availablePolicies())).endRow();
        h.endTable();
        if (p.learned().isEmpty()) {
            h.paragraph("policy-learned-none", p.name() + " reports nothing learned.");
        } else {
            h.table("policy-learned", "learned by " + p.name(), "value");
            for (Map.Entry<String, Double> e : p.learned().entrySet()) {
                h.row().cell(e.getKey()).decimal("learned-" + e.getKey(), e.getValue()).endRow();
            }
            h.endTable();
        }
        h.form("policy-choose", "get", pluginRoot).select("policy-select", POLICY_PARAM);
        h.option("", "highest-ranked", false);
        for (String name : s.availablePolicies()) {
            h.option(name, name, name.equals(p.name()));
        }
        h.endSelect().button("policy-switch", "Switch policy…").endForm();
    }

    /** The confirmation of a switch to {@code proposed}, which the caller checked is deployed. */
    static void confirm(Html h, String current, String proposed, String pluginRoot, String token) {
        h.statusLine("policy-confirm-question", "Switch the eviction policy from " + current + " to " + label(proposed)
                + "? The master plans its next eviction round with it.", false);
        h.form("policy-confirm", "post", pluginRoot).hidden(POLICY_PARAM, proposed).hidden(TOKEN_PARAM, token)
                .button("policy-confirm-button", "Switch to " + label(proposed));
        h.link("policy-cancel", pluginRoot, "Cancel").endForm();
    }

    static void unknown(Html h, String proposed, List<String> available) {
        h.statusLine("policy-unknown", "No eviction policy named '" + proposed + "' is deployed here; available: "
                + String.join(", ", available) + ".", true);
    }

    static void switched(Html h, String policy, String kept) {
        h.statusLine("policy-switched", "Eviction policy set to " + label(policy) + " (" + kept
                + "); the master applies it without a restart.", false);
    }
}
