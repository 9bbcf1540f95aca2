package org.mooncake.osgi.epd.model;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Run in a separate JVM by {@link CrossProcessDeterminismTest}: decodes a JPEG drawn here, encodes
 * it, answers, and prints {@code media=<hash> hidden=<sha256> answer=<ids>}.
 */
public final class DeterminismProbe {
    private DeterminismProbe() {
    }

    public static void main(String[] args) {
        System.out.println(run(ModelConfig.named(args[0]), Long.parseLong(args[1])));
    }

    static String run(ModelConfig cfg, long seed) {
        Model model = Model.create(cfg, seed);
        BufferedImage picture = TestImages.picture(97, 61, new Color(30, 120, 200), new Color(250, 200, 40),
                BufferedImage.TYPE_INT_RGB);
        Media media = Media.decode(TestImages.encode(picture, "jpeg"), cfg);
        HiddenState state = model.encode(media);
        int[] answer = Fixtures.answer(model, state);
        return "media=" + media.contentHash() + " hidden=" + state.sha256() + " answer="
                + Arrays.toString(answer).replace(" ", "");
    }

    static List<String> command(String javaExecutable, String... jvmFlags) {
        String classPath = location(DeterminismProbe.class) + File.pathSeparator + location(Model.class);
        List<String> command = new ArrayList<>(List.of(javaExecutable));
        command.addAll(List.of(jvmFlags));
        command.addAll(List.of("-cp", classPath, DeterminismProbe.class.getName(), "tiny", Long.toString(Fixtures.SEED)));
        return command;
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
