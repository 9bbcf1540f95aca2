package org.mooncake.osgi.store.baseline;

import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import aQute.bnd.differ.Baseline;
import aQute.bnd.differ.Baseline.BundleInfo;
import aQute.bnd.differ.Baseline.Info;
import aQute.bnd.differ.DiffPluginImpl;
import aQute.bnd.header.Parameters;
import aQute.bnd.osgi.Instructions;
import aQute.bnd.osgi.Jar;
import aQute.bnd.osgi.Processor;

/**
 * The comparison bnd-baseline-maven-plugin makes (bndlib's {@link Baseline} over every exported
 * package, with no differences ignored), and its verdict: the build fails when a package or the
 * bundle has a version below the one its changes call for.
 */
record BaselineCheck(BundleInfo bundle, List<Info> packages) {

    static BaselineCheck compare(Path newer, Path older) throws Exception {
        try (Processor reporter = new Processor(); Jar n = new Jar(newer.toFile()); Jar o = new Jar(older.toFile())) {
            Baseline baseline = new Baseline(reporter, new DiffPluginImpl());
            List<Info> infos = baseline.baseline(n, o, new Instructions(new Parameters("*", reporter))).stream()
                    .sorted(Comparator.comparing(i -> i.packageName)).toList();
            return new BaselineCheck(baseline.getBundleInfo(), infos);
        }
    }

    /** What makes the plugin fail the build. */
    boolean fails() {
        return bundle.mismatch || packages.stream().anyMatch(i -> i.mismatch);
    }

    Optional<Info> pkg(String name) {
        return packages.stream().filter(i -> i.packageName.equals(name)).findFirst();
    }

    /** One line per mismatch, the way the plugin's report marks them. */
    String report() {
        StringBuilder r = new StringBuilder("bundle ").append(bundle.bsn).append(' ').append(bundle.newerVersion)
                .append(bundle.mismatch ? " * suggest " + bundle.suggestedVersion : " ok");
        for (Info i : packages) {
            r.append("\n  ").append(i.packageName).append(' ').append(i.packageDiff.getDelta()).append(' ')
                    .append(i.newerVersion).append(i.mismatch ? " * suggest " + i.suggestedVersion : " ok");
        }
        return r.toString();
    }
}
