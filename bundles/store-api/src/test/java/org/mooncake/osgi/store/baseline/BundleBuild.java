package org.mooncake.osgi.store.baseline;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import aQute.bnd.osgi.Builder;
import aQute.bnd.osgi.Constants;
import aQute.bnd.osgi.Jar;

import org.mooncake.osgi.store.api.StoreClient;

/**
 * Builds this module's bundle the way the build does (bnd reads the {@code @Export @Version}
 * package annotations), from its compiled classes or from a copy with some sources changed.
 */
final class BundleBuild {
    private BundleBuild() {
    }

    /** This module's compiled main classes (target/classes). */
    static Path mainClasses() throws IOException {
        try {
            return Path.of(StoreClient.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    /** The module's main sources (src/main/java), beside target/classes. */
    static Path mainSources() throws IOException {
        return mainClasses().getParent().getParent().resolve("src/main/java");
    }

    /** Writes a bundle of the classes in {@code classes}, with this symbolic name and version, to {@code out}. */
    static Path bundle(Path classes, String symbolicName, String version, Path out) throws Exception {
        try (Builder builder = new Builder()) {
            builder.setProperty(Constants.BUNDLE_SYMBOLICNAME, symbolicName);
            builder.setProperty(Constants.BUNDLE_VERSION, version);
            builder.setProperty(Constants.NOEXTRAHEADERS, "true");
            builder.setProperty("-noimportjava", "true");
            builder.setJar(new Jar(symbolicName, classes.toFile()));
            Jar jar = builder.build();
            if (!builder.isOk()) {
                throw new IllegalStateException("bnd could not build " + symbolicName + ": " + builder.getErrors());
            }
            jar.write(out.toFile());
            return out;
        }
    }

    /**
     * A copy of the compiled classes in which the given sources (path below src/main/java to the
     * new text) are compiled again, as if they had been edited.
     */
    static Path withEditedSources(Map<String, String> edits, Path workDir) throws IOException {
        Path classes = workDir.resolve("classes");
        copyTree(mainClasses(), classes);
        Path sources = workDir.resolve("src");
        List<String> files = new ArrayList<>();
        for (Map.Entry<String, String> edit : edits.entrySet()) {
            Path source = sources.resolve(edit.getKey());
            Files.createDirectories(source.getParent());
            Files.writeString(source, edit.getValue());
            files.add(source.toString());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        List<String> args = new ArrayList<>(List.of("--release", String.valueOf(javaRelease()),
                "-proc:none", "-implicit:none", "-d", classes.toString(),
                "-cp", classes + File.pathSeparator + System.getProperty("java.class.path")));
        args.addAll(files);
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int rc = javac.run(null, diagnostics, diagnostics, args.toArray(String[]::new));
        if (rc != 0) {
            throw new IllegalStateException("javac failed on " + files + ":\n" + diagnostics);
        }
        return classes;
    }

    /** The Java release the module is compiled for, read from a class file it compiled. */
    private static int javaRelease() throws IOException {
        byte[] header = Files.readAllBytes(mainClasses().resolve("org/mooncake/osgi/store/api/StoreClient.class"));
        return ((header[6] & 0xff) << 8 | (header[7] & 0xff)) - 44;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
