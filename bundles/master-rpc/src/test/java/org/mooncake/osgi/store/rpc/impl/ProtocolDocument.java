package org.mooncake.osgi.store.rpc.impl;

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
 * is ignored, so the examples can be annotated byte by byte.
 */
final class ProtocolDocument {
    static final String RELATIVE_PATH = "docs/protocol.md";
    private static final Pattern FRAME = Pattern.compile("<!-- frame: ([a-z0-9-]+) -->\\s*```hex\\n(.*?)```",
            Pattern.DOTALL);

    private final Map<String, byte[]> frames;

    private ProtocolDocument(Map<String, byte[]> frames) {
        this.frames = frames;
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
        return new ProtocolDocument(frames);
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

    byte[] frame(String name) {
        byte[] b = frames.get(name);
        if (b == null) {
            throw new AssertionError(RELATIVE_PATH + " has no frame " + name);
        }
        return b;
    }
}
