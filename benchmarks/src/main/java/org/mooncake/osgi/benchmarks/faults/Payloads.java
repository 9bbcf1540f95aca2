package org.mooncake.osgi.benchmarks.faults;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * What a fault-suite object holds, derived from its key alone: a key names its size and data
 * type ({@code w3.17-512-KVCACHE}), and its bytes come from a generator seeded by the whole key.
 * Whoever reads an object (the worker that wrote it, another, the harness's final sweep) can
 * therefore tell whole from corrupt from half-written without the writer's copy, and a key is
 * never written twice, so there is exactly one right value for it.
 */
public final class Payloads {
    private Payloads() {
    }

    /** The key of a worker's {@code seq}-th object. */
    public static String key(String worker, long seq, int size, ObjectDataType type) {
        return worker + "." + seq + "-" + size + "-" + type.name();
    }

    /** The size a key names. */
    public static int size(String key) {
        String[] parts = key.split("-");
        return Integer.parseInt(parts[parts.length - 2]);
    }

    /** The data type a key names. */
    public static ObjectDataType type(String key) {
        String[] parts = key.split("-");
        return ObjectDataType.valueOf(parts[parts.length - 1]);
    }

    /**
     * The one right value of {@code key}: random bytes for KV caches and tensors, a repeated
     * 16-byte word for weights (a pattern a misplaced offset shifts visibly), text for metadata.
     */
    public static byte[] value(String key) {
        int size = size(key);
        byte[] b = new byte[size];
        SplittableRandom rnd = new SplittableRandom(seed(key));
        switch (type(key)) {
            case WEIGHT -> {
                byte[] word = new byte[16];
                rnd.nextBytes(word);
                for (int i = 0; i < size; i++) {
                    b[i] = word[i & 15];
                }
            }
            case METADATA -> {
                for (int i = 0; i < size; i++) {
                    b[i] = (byte) ('a' + rnd.nextInt(26));
                }
            }
            default -> rnd.nextBytes(b);
        }
        return b;
    }

    /** CRC-32C of {@code bytes} with their length in the high word: what the logs record of a value. */
    public static long hash(byte[] bytes, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, length);
        return ((long) length << 32) | crc.getValue();
    }

    public static long hash(byte[] bytes) {
        return hash(bytes, bytes.length);
    }

    private static long seed(String key) {
        long h = 1125899906842597L;
        for (int i = 0; i < key.length(); i++) {
            h = 31 * h + key.charAt(i);
        }
        return h;
    }
}
