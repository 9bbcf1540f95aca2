package org.mooncake.osgi.distribution;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.felix.fileinstall.shaded.util.properties.TypedProperties;

/**
 * One sample in {@code etc/}: {@code <pid>.cfg.sample}, {@code <pid>.config.sample} (Felix's typed
 * format) or {@code <factoryPid>-<name>.cfg.sample}. Its lines are blank, prose ({@code # ...}) or a
 * setting commented out ({@code #key=value}, no space after the {@code #}), each setting after one
 * prose line that says why. Activating it (removing the {@code .sample} and the {@code #} of each
 * setting) gives a file FileInstall reads with its own parser, as here.
 */
record ConfigSample(Path file, String name, List<Setting> settings, List<String> problems) {
    static final String SUFFIX = ".sample";
    private static final Pattern SETTING = Pattern.compile("#([A-Za-z][A-Za-z0-9_.]*)=(.*)");

    /** A setting commented out, with the prose line just above it (empty if there is none). */
    record Setting(String key, String value, String why) {
    }

    /** The configuration file name this sample becomes: its name without {@code .sample}. */
    String activeName() {
        return name.substring(0, name.length() - SUFFIX.length());
    }

    /** The PID or factory PID of the file it becomes (FileInstall: the name before its extension, up to a '-'). */
    String pid() {
        String base = activeName().replaceFirst("\\.(cfg|config)$", "");
        int dash = base.indexOf('-');
        return dash < 0 ? base : base.substring(0, dash);
    }

    boolean factory() {
        return activeName().replaceFirst("\\.(cfg|config)$", "").contains("-");
    }

    static ConfigSample read(Path file) throws IOException {
        List<Setting> settings = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String previous = "";
        int n = 0;
        for (String line : Files.readAllLines(file)) {
            n++;
            Matcher m = SETTING.matcher(line);
            if (m.matches()) {
                String why = previous.startsWith("# ") ? previous.substring(2).strip() : "";
                settings.add(new Setting(m.group(1), m.group(2), why));
            } else if (!line.isBlank() && !line.equals("#") && !line.startsWith("# ")) {
                problems.add("line " + n + " is neither prose ('# ...') nor a setting commented out ('#key=value'): " + line);
            }
            previous = line;
        }
        return new ConfigSample(file, file.getFileName().toString(), List.copyOf(settings), List.copyOf(problems));
    }

    /** What FileInstall reads from the file this sample becomes with every setting uncommented. */
    Map<String, Object> activated() throws IOException {
        StringBuilder text = new StringBuilder();
        for (Setting s : settings) {
            text.append(s.key()).append('=').append(s.value()).append('\n');
        }
        TypedProperties p = new TypedProperties();
        p.load(new StringReader(text.toString()));
        Map<String, Object> out = new LinkedHashMap<>();
        for (String key : p.keySet()) {
            out.put(key, p.get(key));
        }
        return out;
    }
}
