package org.mooncake.osgi.transport.tcp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The example frames of {@code docs/protocol.md}: each is a fenced {@code hex} block right after
 * a line {@code <!-- frame: NAME -->}. Within a block, {@code #} starts a comment and whitespace
 * is ignored, so the examples can be annotated byte by byte. A checksum example is a {@code hex}
 * block of input after {@code <!-- checksum: NAME xxh3-64=HEX -->}.
 */
final class ProtocolDocument {
    static final String RELATIVE_PATH = "docs/protocol.md";
    private static final Pattern FRAME = Pattern.compile("<!-- frame: ([a-z0-9-]+) -->\\s*```hex\\n(.*?)```",
            Pattern.DOTALL);
    private static final Pattern CHECKSUM = Pattern.compile(
            "<!-- checksum: ([a-z0-9-]+) xxh3-64=([0-9a-f]{16}) -->\\s*```hex\\n(.*?)```", Pattern.DOTALL);

    /** A documented checksum: the XXH3-64 of {@code input}, as the 64 bits a Java long holds. */
    record Checksum(byte[] input, long xxh3) {
    }

    private final Map<String, byte[]> frames;
    private final Map<String, Checksum> checksums;

    private ProtocolDocument(Map<String, byte[]> frames, Map<String, Checksum> checksums) {
        this.frames = frames;
        this.checksums = checksums;
    }

    /** The document of the repository this module lives in: the first ancestor of the working directory that has it. */
    static ProtocolDocument load() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path doc = dir.resolve(RELATIVE_PATH);
            if (Files.isRegularFile(doc)) {
                try {
                    return parse(Files.readString(doc));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        throw new IllegalStateException(RELATIVE_PATH + " not found above " + Path.of("").toAbsolutePath());
    }

    static ProtocolDocument parse(String markdown) {
        Map<String, byte[]> frames = new LinkedHashMap<>();
        Matcher m = FRAME.matcher(markdown);
        while (m.find()) {
            if (frames.put(m.group(1), bytes(m.group(1), m.group(2))) != null) {
                throw new IllegalStateException("frame " + m.group(1) + " appears twice in " + RELATIVE_PATH);
            }
        }
        Map<String, Checksum> checksums = new LinkedHashMap<>();
        Matcher c = CHECKSUM.matcher(markdown);
        while (c.find()) {
            Checksum sum = new Checksum(bytes(c.group(1), c.group(3)), Long.parseUnsignedLong(c.group(2), 16));
            if (checksums.put(c.group(1), sum) != null) {
                throw new IllegalStateException("checksum " + c.group(1) + " appears twice in " + RELATIVE_PATH);
            }
        }
        return new ProtocolDocument(frames, checksums);
    }

    private static byte[] bytes(String name, String block) {
        StringBuilder hex = new StringBuilder();
        for (String line : block.split("\n")) {
            int comment = line.indexOf('#');
            hex.append((comment < 0 ? line : line.substring(0, comment)).replaceAll("\\s+", ""));
        }
        try {
            return HexFormat.of().parseHex(hex);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("frame " + name + " in " + RELATIVE_PATH + " is not hex: " + e.getMessage());
        }
    }

    /** The frames whose names start with {@code prefix}, in document order. */
    Map<String, byte[]> frames(String prefix) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        frames.forEach((name, bytes) -> {
            if (name.startsWith(prefix)) {
                out.put(name, bytes);
            }
        });
        return out;
    }

    Map<String, Checksum> checksums() {
        return checksums;
    }

    byte[] frame(String name) {
        byte[] b = frames.get(name);
        if (b == null) {
            throw new AssertionError(RELATIVE_PATH + " has no frame " + name);
        }
        return b;
    }
}
