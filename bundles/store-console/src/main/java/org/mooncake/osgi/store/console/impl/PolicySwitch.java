package org.mooncake.osgi.store.console.impl;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Selects the master's eviction policy the way the {@code store:policy NAME} command does: by its
 * configuration's {@code eviction.policy}, which the master applies without a restart.
 */
final class PolicySwitch {
    static final String MASTER_PID = "org.mooncake.osgi.store.master";
    static final String POLICY_PROPERTY = "eviction.policy";
    /** Set by FileInstall on a configuration it read from a file, which it then keeps in step. */
    static final String FILE_INSTALL_FILENAME = "felix.fileinstall.filename";

    private final ConfigurationAdmin configAdmin;

    PolicySwitch(ConfigurationAdmin configAdmin) {
        this.configAdmin = configAdmin;
    }

    /** Makes {@code name} the configured policy ("" for the highest-ranked); says how long the choice lasts. */
    String select(String name) throws IOException {
        Configuration c = configAdmin.getConfiguration(MASTER_PID, "?");
        Dictionary<String, Object> props = c.getProperties() == null ? new Hashtable<>() : c.getProperties();
        props.put(POLICY_PROPERTY, name);
        c.update(props);
        return kept(props.get(FILE_INSTALL_FILENAME));
    }

    /** How long the configured policy lasts now. */
    String kept() throws IOException {
        Dictionary<String, Object> props = configAdmin.getConfiguration(MASTER_PID, "?").getProperties();
        return kept(props == null ? null : props.get(FILE_INSTALL_FILENAME));
    }

    /**
     * How long a change made here lasts: the container clears ConfigAdmin's store at every start,
     * and FileInstall writes a change back only to a configuration that came from a file in etc/.
     */
    static String kept(Object file) {
        return file != null ? "saved in " + file
                : "kept until this process stops (to keep it, put " + POLICY_PROPERTY + " in etc/" + MASTER_PID + ".cfg)";
    }
}
