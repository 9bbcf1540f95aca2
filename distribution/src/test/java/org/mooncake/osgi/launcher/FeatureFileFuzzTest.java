package org.mooncake.osgi.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;

import org.osgi.service.feature.FeatureService;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * The launcher's reading of a feature or profile file (docs/fuzzing.md): any bytes as a feature
 * file, read and checked ({@link FeatureFile#load}), then read by the Feature Service library with
 * its variables filled in, which parses every configuration (typed values included) and the
 * framework properties. Accepted outcomes are the documented ones: an {@link IOException} naming
 * the file, or from {@link FeatureFile#read} an {@link IllegalArgumentException} for a variable
 * that needs a value. Anything else is a finding.
 * <p>
 * Input: the file's bytes; after a first zero byte, the value given to each of its variables (as
 * {@code --set} would); without one, every variable keeps its default.
 */
class FeatureFileFuzzTest {
    private static final FeatureService SERVICE = ServiceLoader.load(FeatureService.class).findFirst().orElseThrow();
    private static Path file;

    private static synchronized Path file() throws IOException {
        if (file == null) {
            file = Files.createTempFile("feature-fuzz", ".json");
            file.toFile().deleteOnExit();
        }
        return file;
    }

    @FuzzTest
    void feature(byte[] input) throws IOException {
        int zero = indexOfZero(input);
        Files.write(file(), zero < 0 ? input : Arrays.copyOf(input, zero));
        FeatureFile feature;
        try {
            feature = FeatureFile.load(file(), "fuzzed", SERVICE);
        } catch (IOException refused) {
            return;
        }
        Map<String, String> given = new HashMap<>();
        if (zero >= 0) {
            String value = new String(input, zero + 1, input.length - zero - 1, StandardCharsets.UTF_8);
            feature.variables().keySet().forEach(v -> given.put(v, value));
        }
        try {
            feature.read(given);
        } catch (IOException refused) {
            // a value its typed configuration cannot take
        } catch (IllegalArgumentException refused) {
            if (!String.valueOf(refused.getMessage()).contains("needs a value for its variable")) {
                throw refused; // not the documented refusal
            }
        }
    }

    private static int indexOfZero(byte[] b) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == 0) {
                return i;
            }
        }
        return -1;
    }
}
