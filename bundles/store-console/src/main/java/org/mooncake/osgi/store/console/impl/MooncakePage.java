package org.mooncake.osgi.store.console.impl;

/**
 * The content of the Mooncake page for one GET: a notice (a switch made, a switch to confirm, an
 * unknown policy), then the store, its segments, the data types, eviction, the policy and the
 * transfers. The console draws its own header and menu around it.
 */
final class MooncakePage {
    private final String pluginRoot;
    private final String token;

    MooncakePage(String pluginRoot, String token) {
        this.pluginRoot = pluginRoot;
        this.token = token;
    }

    /**
     * @param proposed the policy chosen in the switch control, to confirm (null when none)
     * @param switched the policy a confirmed switch selected (null when none)
     * @param kept how long the configured policy lasts, shown after a switch
     */
    String render(StoreView view, String proposed, String switched, String kept) {
        Html h = new Html().begin();
        if (view.stats() == null) {
            h.statusLine("no-master", "No master runs in this process: its figures and policy are shown where the "
                    + "master runs.", false);
        } else {
            notices(h, view, proposed, switched, kept);
            FiguresHtml.store(h, view.stats());
            FiguresHtml.segments(h, view.segments());
            FiguresHtml.types(h, view.stats().types());
            FiguresHtml.eviction(h, view.stats());
            PolicyHtml.active(h, view.stats(), view.policy(), pluginRoot);
        }
        FiguresHtml.transfers(h, view.transfers(), view.hasClient());
        return h.end().toString();
    }

    private void notices(Html h, StoreView view, String proposed, String switched, String kept) {
        if (switched != null) {
            PolicyHtml.switched(h, switched, kept);
        }
        if (proposed == null) {
            return;
        }
        if (proposed.isEmpty() || view.stats().availablePolicies().contains(proposed)) {
            PolicyHtml.confirm(h, view.policy().name(), proposed, pluginRoot, token);
        } else {
            PolicyHtml.unknown(h, proposed, view.stats().availablePolicies());
        }
    }
}
