package org.mooncake.osgi.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class StartOrderTest {
    @Test
    void orderedBundlesStartFirstLowestFirstThenTheRestInTheirGivenOrder() {
        List<String> ids = List.of("cxf", "slf4j-api", "jetty", "spifly", "slf4j-jdk14", "admin");
        Map<String, Integer> order = Map.of("spifly", 1, "slf4j-api", 2, "slf4j-jdk14", 2);
        assertEquals(List.of(List.of("spifly"), List.of("slf4j-api", "slf4j-jdk14"), List.of("cxf", "jetty", "admin")),
                StartOrder.groups(ids, order));
    }

    @Test
    void withoutOrderAllIsOneGroupAndNothingIsNoGroup() {
        assertEquals(List.of(List.of("a", "b")), StartOrder.groups(List.of("a", "b"), Map.of()));
        assertEquals(List.of(), StartOrder.groups(List.of(), Map.of("a", 1)));
    }
}
