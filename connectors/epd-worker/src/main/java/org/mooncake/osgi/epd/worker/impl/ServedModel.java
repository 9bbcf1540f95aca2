package org.mooncake.osgi.epd.worker.impl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.mooncake.osgi.epd.api.DType;
import org.mooncake.osgi.epd.api.KeyNamespace;
import org.mooncake.osgi.epd.model.Model;
import org.mooncake.osgi.epd.model.ModelConfig;

/**
 * A model this worker serves, under the id clients ask for: {@code name@revision}. The revision
 * is the weights' (a seed here); hidden states and KV blocks are keyed by name, revision and
 * the hash of the configuration they depend on, so two revisions sharing one store never read
 * each other's tensors.
 */
record ServedModel(String id, String name, String revision, Model model, KeyNamespace hidden, KeyNamespace kv) {

    /**
     * Parses {@code id=size:seed} entries, commas or spaces between them (an entry of a String[]
     * may hold several): {@code mooncake-vl@r1=demo:1}. The id must be {@code name@revision}.
     */
    static Map<String, ServedModel> parse(String[] entries, String prefix) {
        Map<String, ServedModel> out = new LinkedHashMap<>();
        List<String> all = new ArrayList<>();
        for (String e : entries == null ? new String[0] : entries) {
            for (String one : e.split("[,\\s]+")) {
                if (!one.isBlank()) {
                    all.add(one.trim());
                }
            }
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException("models is empty: name at least one, e.g. mooncake-vl@r1=demo:1");
        }
        for (String entry : all) {
            ServedModel m = of(entry, prefix);
            if (out.put(m.id(), m) != null) {
                throw new IllegalArgumentException("model " + m.id() + " is named twice");
            }
        }
        return out;
    }

    private static ServedModel of(String entry, String prefix) {
        int eq = entry.indexOf('=');
        int at = entry.indexOf('@');
        int colon = entry.lastIndexOf(':');
        if (eq <= 0 || at <= 0 || at > eq - 2 || colon < eq + 2 || colon == entry.length() - 1) {
            throw new IllegalArgumentException("model entry must be name@revision=size:seed, was " + entry);
        }
        String id = entry.substring(0, eq);
        ModelConfig cfg = ModelConfig.named(entry.substring(eq + 1, colon));
        long seed;
        try {
            seed = Long.parseLong(entry.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("model " + id + ": seed is not a number: " + entry.substring(colon + 1));
        }
        Model model = Model.create(cfg, seed);
        String name = id.substring(0, at);
        String revision = id.substring(at + 1);
        return new ServedModel(id, name, revision, model,
                new KeyNamespace(prefix, name, revision, model.encoderFingerprint(), DType.F32, 1,
                        KeyNamespace.Parallel.SINGLE),
                new KeyNamespace(prefix, name, revision, model.kvFingerprint(), DType.F32, 1,
                        KeyNamespace.Parallel.SINGLE));
    }

    ModelConfig config() {
        return model.config();
    }
}
