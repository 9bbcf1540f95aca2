package org.mooncake.osgi.epd.demo;

import java.util.ArrayList;
import java.util.List;

/** A plain-text table: the first column left-aligned, the others right-aligned, two spaces apart. */
final class TextTable {
    private final List<String[]> rows = new ArrayList<>();

    TextTable(String... header) {
        rows.add(header);
    }

    TextTable row(Object... cells) {
        String[] s = new String[cells.length];
        for (int i = 0; i < cells.length; i++) {
            s[i] = String.valueOf(cells[i]);
        }
        rows.add(s);
        return this;
    }

    String render() {
        int cols = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] width = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                String pad = " ".repeat(width[i] - r[i].length());
                line.append(i == 0 ? r[i] + pad : "  " + pad + r[i]);
            }
            b.append(line.toString().stripTrailing()).append('\n');
        }
        return b.toString();
    }
}
