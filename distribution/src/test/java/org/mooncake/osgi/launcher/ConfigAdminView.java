package org.mooncake.osgi.launcher;

import java.util.Collections;
import java.util.Dictionary;
import java.util.LinkedHashMap;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * Reads configurations from the container's ConfigurationAdmin. Its API lives in a bundle, as
 * classes this test's class path cannot cast to, so the calls go by reflection through its interface.
 */
final class ConfigAdminView {
    private ConfigAdminView() {
    }

    /** The properties of the one configuration that {@code filter} matches. */
    static Map<String, Object> properties(BundleContext ctx, String filter) throws Exception {
        // all references: ConfigAdmin's API on this class path is another class than the bundle's
        ServiceReference<?>[] refs = ctx.getAllServiceReferences("org.osgi.service.cm.ConfigurationAdmin", null);
        if (refs == null) {
            throw new AssertionError("no ConfigurationAdmin");
        }
        ServiceReference<?> ref = refs[0];
        Object admin = ctx.getService(ref);
        try {
            Class<?> api = ref.getBundle().loadClass("org.osgi.service.cm.ConfigurationAdmin");
            Object[] found = (Object[]) api.getMethod("listConfigurations", String.class).invoke(admin, filter);
            if (found == null || found.length != 1) {
                throw new AssertionError((found == null ? 0 : found.length) + " configurations match " + filter);
            }
            Class<?> configuration = ref.getBundle().loadClass("org.osgi.service.cm.Configuration");
            Dictionary<?, ?> props = (Dictionary<?, ?>) configuration.getMethod("getProperties").invoke(found[0]);
            Map<String, Object> out = new LinkedHashMap<>();
            for (Object key : Collections.list(props.keys())) {
                out.put((String) key, props.get(key));
            }
            return out;
        } finally {
            ctx.ungetService(ref);
        }
    }
}
