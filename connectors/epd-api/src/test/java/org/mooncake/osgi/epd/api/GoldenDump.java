package org.mooncake.osgi.epd.api;

import java.util.HexFormat;

/** Prints the golden object as the dump the test and docs/epd-protocol.md hold (run by hand after a deliberate format change). */
final class GoldenDump {
    private GoldenDump() {
    }

    static String dump(byte[] b) {
        StringBuilder out = new StringBuilder();
        for (int at = 0; at < b.length; at += 16) {
            out.append(String.format("%08x:", at));
            for (int i = at; i < Math.min(b.length, at + 16); i++) {
                out.append(' ').append(HexFormat.of().toHexDigits(b[i]));
            }
            out.append('\n');
        }
        return out.toString();
    }

    public static void main(String[] args) {
        System.out.print(dump(TensorHeaderTest.goldenObject()));
    }
}
