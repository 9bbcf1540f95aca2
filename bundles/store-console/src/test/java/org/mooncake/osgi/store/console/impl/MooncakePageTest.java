package org.mooncake.osgi.store.console.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;
import org.mooncake.osgi.store.api.TransferStats;
import org.mooncake.osgi.store.master.MasterStats;
import org.mooncake.osgi.store.master.MemoryKindStats;
import org.mooncake.osgi.store.master.SegmentStats;
import org.mooncake.osgi.store.master.TypeStats;
import org.mooncake.osgi.store.spi.device.MemoryKind;

class MooncakePageTest {
    private static final String ROOT = "/system/console/mooncake";
    private static final String TOKEN = "0123abcd";

    private static MasterStats stats(List<String> policies) {
        return new MasterStats(1 << 20, 300_000, 3, 1, 1, 2,
                List.of(new TypeStats(ObjectDataType.KVCACHE, 2, 200_000, 5, 1, 4, 80_000),
                        new TypeStats(ObjectDataType.HIDDEN_STATE, 1, 100_000, 0, 2, 0, 0),
                        new TypeStats(ObjectDataType.TENSOR, 0, 0, 0, 0, 0, 0)),
                7, 2_500_000, 10_000_000, 3, "lease-lru", policies,
                List.of(new MemoryKindStats(MemoryKind.HOST, 1, 1 << 20, 300_000)));
    }

    private static StoreView view(String activeSettings, Map<String, Double> learned, List<String> policies) {
        return new StoreView(stats(policies),
                List.of(new SegmentStats("seg-<b>1</b>", "client-1", "local", 1 << 20, 300_000, List.of("local://x"))),
                new StoreView.ActivePolicy("lease-lru", activeSettings, learned), true,
                List.of(new TransferStats("local", 3, 300_000, 0, 6, 600_000, 1, 0)));
    }

    private static String render(StoreView view, String proposed, String switched) {
        return new MooncakePage(ROOT, TOKEN).render(view, proposed, switched, "kept until this process stops");
    }

    @Test
    void everyFigureHasItsIdAndExactValue() {
        String html = render(view("lease-lru ttl=10s", Map.of("reuse_seconds", 12.5), List.of("lease-lru", "type-aware")),
                null, null);
        for (String figure : List.of("id=\"store-capacity\" data-value=\"1048576\">1,048,576<",
                "id=\"store-used\" data-value=\"300000\"", "id=\"store-objects\" data-value=\"3\"",
                "id=\"type-KVCACHE-objects\" data-value=\"2\"", "id=\"type-KVCACHE-bytes\" data-value=\"200000\"",
                "id=\"type-KVCACHE-hits\" data-value=\"5\"", "id=\"type-KVCACHE-misses\" data-value=\"1\"",
                "id=\"type-KVCACHE-evictions\" data-value=\"4\"", "id=\"type-HIDDEN_STATE-misses\" data-value=\"2\"",
                "id=\"eviction-rounds\" data-value=\"7\"", "id=\"eviction-last\" data-value=\"2500000\">2.500 ms<",
                "id=\"eviction-mean\" data-value=\"1428571\"", "id=\"memory-HOST-used\" data-value=\"300000\"",
                "id=\"policy-active\">lease-lru<", "id=\"policy-settings\">lease-lru ttl=10s<",
                "id=\"learned-reuse_seconds\" data-value=\"12.5\"", "id=\"transfer-local-reads\" data-value=\"6\"",
                "id=\"transfer-local-bytes-read\" data-value=\"600000\"", "id=\"transfer-local-failed-reads\" data-value=\"1\"",
                "<option value=\"type-aware\">type-aware</option>", "<option value=\"lease-lru\" selected>")) {
            assertTrue(html.contains(figure), figure + " in\n" + html);
        }
        assertFalse(html.contains("type-TENSOR"), "a type never used is left out");
        assertFalse(html.contains("policy-confirm"), "nothing to confirm");
    }

    @Test
    void textFromTheStoreIsEscaped() {
        String html = render(view("<script>alert(1)</script>", Map.of(), List.of("lease-lru")), "\"><img src=x>", null);
        assertFalse(html.contains("<script>"), html);
        assertFalse(html.contains("<b>1</b>"), html);
        assertFalse(html.contains("<img"), html);
        assertTrue(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), html);
        assertTrue(html.contains("id=\"policy-unknown\""), "an unknown policy is refused before any confirmation");
    }

    @Test
    void choosingAPolicyAsksForConfirmationWithThePagesToken() {
        String html = render(view("lease-lru", Map.of(), List.of("lease-lru", "type-aware")), "type-aware", null);
        assertTrue(html.contains("Switch the eviction policy from lease-lru to type-aware?"), html);
        assertTrue(html.contains("<form id=\"policy-confirm\" method=\"post\" action=\"" + ROOT + "\">"), html);
        assertTrue(html.contains("name=\"policy\" value=\"type-aware\""), html);
        assertTrue(html.contains("name=\"token\" value=\"" + TOKEN + "\""), html);
        assertTrue(html.contains("id=\"policy-cancel\" href=\"" + ROOT + "\""), html);
        String highest = render(view("lease-lru", Map.of(), List.of("lease-lru")), "", null);
        assertTrue(highest.contains("from lease-lru to the highest-ranked policy?"), highest);
    }

    @Test
    void aSwitchMadeIsReportedWithHowLongItLasts() {
        String html = render(view("lease-lru", Map.of(), List.of("lease-lru")), null, "type-aware");
        assertTrue(html.contains("id=\"policy-switched\">Eviction policy set to type-aware (kept until this process stops)"),
                html);
    }

    @Test
    void aProcessWithoutMasterOrClientSaysSo() {
        String html = render(new StoreView(null, List.of(), null, false, List.of()), "x", null);
        assertTrue(html.contains("id=\"no-master\""), html);
        assertTrue(html.contains("No store client runs in this process."), html);
        assertFalse(html.contains("policy-confirm"), html);
    }
}
