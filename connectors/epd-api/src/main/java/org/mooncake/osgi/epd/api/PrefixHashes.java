package org.mooncake.osgi.epd.api;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;

/**
 * The chain of block hashes of a prompt: block {@code i}'s hash covers every token up to its
 * end, so equal hashes mean equal prefixes. SHA-256 over the previous block's hash, then the
 * block's token ids (little-endian 32-bit), then the ids of the media items whose placeholder
 * tokens it holds, each followed by a zero byte (a media placeholder id alone does not say which
 * image it stands for). The first block chains from the SHA-256 of {@code "mooncake-osgi/kv/v1"}.
 */
public final class PrefixHashes {
    private static final byte[] ROOT = sha256().digest("mooncake-osgi/kv/v1".getBytes(StandardCharsets.UTF_8));

    private PrefixHashes() {
    }

    /**
     * The hashes of the blocks of {@code tokens}, {@code blockTokens} per block (the last may be
     * shorter). {@code mediaAt[t]} names the media item of placeholder token {@code t}, null for
     * text; the array may be null when there is no media.
     */
    public static List<byte[]> of(int[] tokens, String[] mediaAt, int blockTokens) {
        if (blockTokens < 1) {
            throw new IllegalArgumentException("blocks hold at least one token");
        }
        if (mediaAt != null && mediaAt.length != tokens.length) {
            throw new IllegalArgumentException("media ids must pair with tokens");
        }
        List<byte[]> out = new ArrayList<>((tokens.length + blockTokens - 1) / blockTokens);
        byte[] previous = ROOT;
        for (int start = 0; start < tokens.length; start += blockTokens) {
            int end = Math.min(tokens.length, start + blockTokens);
            MessageDigest d = sha256();
            d.update(previous);
            byte[] ids = new byte[4 * (end - start)];
            for (int t = start; t < end; t++) {
                int v = tokens[t];
                int at = 4 * (t - start);
                ids[at] = (byte) v;
                ids[at + 1] = (byte) (v >>> 8);
                ids[at + 2] = (byte) (v >>> 16);
                ids[at + 3] = (byte) (v >>> 24);
            }
            d.update(ids);
            String last = null;
            for (int t = start; mediaAt != null && t < end; t++) {
                if (mediaAt[t] != null && !mediaAt[t].equals(last)) {
                    d.update(mediaAt[t].getBytes(StandardCharsets.UTF_8));
                    d.update((byte) 0);
                    last = mediaAt[t];
                }
            }
            previous = d.digest();
            out.add(previous);
        }
        return out;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
