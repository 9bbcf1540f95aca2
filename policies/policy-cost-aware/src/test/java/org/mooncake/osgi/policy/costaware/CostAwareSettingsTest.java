package org.mooncake.osgi.policy.costaware;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.mooncake.osgi.store.api.ObjectDataType;

class CostAwareSettingsTest {
    @Test
    void badSettingsAreRefusedWithTheirName() {
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new CostAwareSettings(Map.of(), 0, 1, 1, 1, 4, 0.99, 0.1)).getMessage().contains("scan_objects"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostAwareSettings.parseCosts(new String[] {"KVCACHE:3"})).getMessage().contains("KVCACHE:3"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> CostAwareSettings.parseCosts(new String[] {"NOPE=3"})).getMessage().contains("NOPE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CostAwareSettings(
                Map.of(ObjectDataType.KVCACHE, -1.0), 4, 1, 1, 1, 4, 0.99, 0.1)).getMessage().contains("KVCACHE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CostAwareSettings(Map.of(), 4, 1, 1, 1, 1, 0.99, 0.1))
                .getMessage().contains("worth_resolution"));
        assertEquals(2.5, new CostAwareSettings(CostAwareSettings.parseCosts(new String[] {"HIDDEN_STATE = 2.5"}), 4, 1, 1, 1, 4, 0, 0.1)
                .costPerMiB(ObjectDataType.HIDDEN_STATE));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CostAwareSettings(Map.of(), 4, 1, 1, 1, 4, 1, 0.1))
                .getMessage().contains("group_end_quantile"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new CostAwareSettings(Map.of(), 4, 1, 1, 1, 4, -0.5, 0.1))
                .getMessage().contains("group_end_quantile"));
        for (double bad : new double[] {0, -0.1, 1.5, Double.NaN}) {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> new CostAwareSettings(Map.of(), 4, 1, 1, 1, 4, 0.99, bad))
                    .getMessage().contains("group_only_read_again_max"), "refused: " + bad);
        }
        assertEquals(1.0, new CostAwareSettings(Map.of(), 4, 1, 1, 1, 4, 0.99, 1).groupOnlyReadAgainMax());
    }
}
