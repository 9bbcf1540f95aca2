package org.mooncake.osgi.launcher;

import java.nio.file.Path;

import org.osgi.service.feature.ID;

/** {@code system/}: the bundles the features name, in Maven repository layout. */
final class SystemRepository {
    private SystemRepository() {
    }

    /** Where the artifact {@code id} lives under {@code system}. */
    static Path jar(Path system, ID id) {
        String file = id.getArtifactId() + "-" + id.getVersion() + id.getClassifier().map(c -> "-" + c).orElse("")
                + "." + id.getType().orElse("jar");
        return system.resolve(id.getGroupId().replace('.', '/')).resolve(id.getArtifactId()).resolve(id.getVersion())
                .resolve(file);
    }
}
