package org.mooncake.osgi.epd.api;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Store keys that make incompatible reuse impossible: every value a stored tensor depends on is
 * a component, so two deployments that differ in any of them never read each other's objects
 * (vLLM added a cache prefix after a bf16-to-fp8 roll-out made two deployments read each
 * other's blocks). Components are URL-escaped (RFC 3986 unreserved characters kept: letters,
 * digits, {@code - _ . ~}; every other UTF-8 byte as {@code %XX}), so no value can forge the
 * {@code @} and {@code :} separators. The tenant is not a component: the store scopes every key
 * by its client's tenant already.
 *
 * <pre>
 * hidden state: [prefix@]embedding@kind:encoder_output@model:{m}@revision:{r}@encoder:{config hash}
 *               @dtype:{d}@layout:v{n}@storage:replicated_object@parallel:tp:{t}@pp:{p}@pcp:{c}@dcp:{d}
 *               @mm_tp:{mode}@tensor_layout:tensor@id:{item id}
 * KV block:     [prefix@]{m}@revision:{r}@config:{config hash}@kv_dtype:{d}@layout:v{n}@tp:{t}@tp_rank:{r}
 *               @pcp{c}@dcp{d}@pp_rank:{p}@group:{g}@{chunk hash, hex}
 * </pre>
 * The first is the EPD submission's format with the weights revision, output dtype and a layout
 * version added; the second vLLM's Mooncake store connector's, with the same three, the model
 * configuration's hash and the tensor parallel size added (a rank's blocks hold its share of the
 * heads, which depends on the size). {@code configHash} is the hash of everything the tensors
 * depend on besides the input: the encoder's configuration for hidden states, the whole model's
 * for KV blocks (two namespaces, then, for one model).
 */
public record KeyNamespace(String prefix, String model, String revision, String configHash, DType dtype,
        int layoutVersion, Parallel parallel) {

    /** The parallel layout the tensors were produced under. */
    public record Parallel(int tp, int pp, int pcp, int dcp, String mmTp, int tpRank, int ppRank) {
        public static final Parallel SINGLE = new Parallel(1, 1, 1, 1, "weights", 0, 0);

        public Parallel {
            if (tp < 1 || pp < 1 || pcp < 1 || dcp < 1 || tpRank < 0 || tpRank >= tp || ppRank < 0 || ppRank >= pp) {
                throw new IllegalArgumentException("parallel sizes must be >= 1 and ranks within them");
            }
            Objects.requireNonNull(mmTp, "mm_tp mode");
        }
    }

    public KeyNamespace {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(revision, "revision");
        Objects.requireNonNull(configHash, "configuration hash");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(parallel, "parallel layout");
        if (model.isEmpty() || revision.isEmpty() || layoutVersion < 1) {
            throw new IllegalArgumentException("model and revision are required and the layout version is >= 1");
        }
        prefix = prefix == null ? "" : prefix;
    }

    /** The key of a media item's hidden state (encoder output). */
    public String hiddenState(String itemId) {
        requireId(itemId);
        return checked(lead() + "embedding@kind:encoder_output@model:" + escape(model) + "@revision:" + escape(revision)
                + "@encoder:" + escape(configHash) + "@dtype:" + dtype.keyName() + "@layout:v" + layoutVersion
                + "@storage:replicated_object@parallel:tp:" + parallel.tp() + "@pp:" + parallel.pp() + "@pcp:"
                + parallel.pcp() + "@dcp:" + parallel.dcp() + "@mm_tp:" + escape(parallel.mmTp())
                + "@tensor_layout:tensor@id:" + escape(itemId));
    }

    /** The key of one KV block: the prefix chain's hash up to and including the block. */
    public String kvBlock(int group, byte[] chunkHash) {
        if (group < 0 || chunkHash == null || chunkHash.length == 0) {
            throw new IllegalArgumentException("a KV block needs a group >= 0 and a chunk hash");
        }
        return checked(lead() + escape(model) + "@revision:" + escape(revision) + "@config:" + escape(configHash)
                + "@kv_dtype:" + dtype.keyName()
                + "@layout:v" + layoutVersion + "@tp:" + parallel.tp() + "@tp_rank:" + parallel.tpRank() + "@pcp" + parallel.pcp() + "@dcp"
                + parallel.dcp() + "@pp_rank:" + parallel.ppRank() + "@group:" + group + "@"
                + HexFormat.of().formatHex(chunkHash));
    }

    private String lead() {
        return prefix.isEmpty() ? "" : escape(prefix) + "@";
    }

    private static void requireId(String itemId) {
        if (itemId == null || itemId.isEmpty()) {
            throw new IllegalArgumentException("item id is required");
        }
    }

    /** Keys are at most 1024 bytes (the store's limit); a namespace that overflows it is a configuration error. */
    private static String checked(String key) {
        if (key.getBytes(StandardCharsets.UTF_8).length > 1024) {
            throw new IllegalArgumentException("key longer than 1024 bytes: shorten the prefix, model or ids");
        }
        return key;
    }

    /** URL-escapes {@code s}: letters, digits and {@code - _ . ~} stay; every other UTF-8 byte becomes %XX. */
    public static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length() + 8);
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            int c = x & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
                    || c == '~') {
                b.append((char) c);
            } else {
                b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return b.toString();
    }
}
