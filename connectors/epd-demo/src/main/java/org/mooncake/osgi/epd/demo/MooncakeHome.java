package org.mooncake.osgi.epd.demo;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the distribution lies ({@code bin/mooncake}, {@code features/}): the {@code mooncake.home}
 * property that {@code bin/mooncake} sets, else the folder above the {@code lib/} that holds this
 * class's jar, so the demo also runs from a plain {@code java -cp lib/*}.
 */
public final class MooncakeHome {
    private MooncakeHome() {
    }

    public static Path locate() {
        String property = System.getProperty("mooncake.home");
        if (property != null && !property.isBlank()) {
            return check(Path.of(property), "mooncake.home=" + property);
        }
        try {
            Path jar = Path.of(MooncakeHome.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path home = jar.getParent() == null ? jar : jar.getParent().getParent();
            return check(home, "the launcher's jar " + jar);
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            throw new IllegalStateException("cannot tell where the distribution is: set -Dmooncake.home", e);
        }
    }

    static Path check(Path home, String from) {
        Path abs = home.toAbsolutePath().normalize();
        if (!Files.isRegularFile(abs.resolve("bin/mooncake"))) {
            throw new IllegalStateException("no bin/mooncake under " + abs + " (from " + from
                    + "): run the demo from a built distribution (./mooncake demo epd builds it)");
        }
        return abs;
    }
}
