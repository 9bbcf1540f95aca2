package org.mooncake.osgi.epd.demo;

import java.io.IOException;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Fake encoder, prefill, decode, aggregated worker and proxy in this JVM, wired like the demo's processes. */
final class FakeCluster implements Endpoints, AutoCloseable {
    private final Map<Role, FakeNode> nodes = new EnumMap<>(Role.class);
    private final Map<Role, String> urls = new EnumMap<>(Role.class);

    FakeCluster(Set<String> faults) throws IOException {
        Set<Role> roles = EnumSet.of(Role.ENCODER, Role.PREFILL, Role.DECODE, Role.AGGREGATED, Role.PROXY);
        List<Integer> ports = FreePorts.pick(Role.values().length);
        for (Role r : roles) {
            urls.put(r, "http://127.0.0.1:" + ports.get(r.ordinal()));
        }
        for (Role r : roles) {
            Map<String, String> vars = r == Role.PROXY
                    ? Map.of("http.port", port(ports, r), "encoders", urls.get(Role.ENCODER),
                            "prefills", urls.get(Role.PREFILL), "decodes", urls.get(Role.DECODE))
                    : Map.of("http.port", port(ports, r), "models", DemoModels.modelsVar(ModelSize.TINY));
            nodes.put(r, FakeNode.start(r.profile(), vars, faults));
        }
    }

    private static String port(List<Integer> ports, Role r) {
        return Integer.toString(ports.get(r.ordinal()));
    }

    @Override
    public Set<Role> roles() {
        return nodes.keySet();
    }

    @Override
    public String url(Role role) {
        return urls.get(role);
    }

    @Override
    public void close() {
        nodes.values().forEach(FakeNode::close);
    }
}
