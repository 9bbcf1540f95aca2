package org.mooncake.osgi.launcher;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * The components a profile configured that Declarative Services could not activate, as SCR's
 * runtime service reports them: a configuration refused at activation (a cluster profile without
 * TLS, a broken value) must stop the launcher, not leave a process that says "up" and does
 * nothing. A component the profile did not configure may fail quietly on purpose (the ucx
 * transport where UCX is not installed logs why and does not register). The runtime service's
 * classes live in the framework, not on the launcher's class path, so its DTOs are read by
 * reflection on their public fields (Declarative Services 1.5).
 */
final class FailedComponents {
    private static final String RUNTIME = "org.osgi.service.component.runtime.ServiceComponentRuntime";
    /** ComponentConfigurationDTO.FAILED_ACTIVATION. */
    private static final int FAILED_ACTIVATION = 16;
    private static final String OURS = "org.mooncake.osgi";

    private FailedComponents() {
    }

    /**
     * One line per failed component of ours whose configuration PID is among {@code configured}
     * (factory configurations as {@code factoryPid~name}): its name and why; empty when all went
     * well or SCR is absent.
     */
    static List<String> of(BundleContext context, Set<String> configured) {
        Set<String> pids = new HashSet<>();
        for (String pid : configured) {
            int tilde = pid.indexOf('~');
            pids.add(tilde < 0 ? pid : pid.substring(0, tilde));
        }
        ServiceReference<?> ref = context.getServiceReference(RUNTIME);
        if (ref == null) {
            return List.of();
        }
        Object runtime = context.getService(ref);
        try {
            List<Bundle> ours = new ArrayList<>();
            for (Bundle b : context.getBundles()) {
                String name = b.getSymbolicName();
                if (name != null && name.startsWith(OURS)) {
                    ours.add(b);
                }
            }
            Class<?> api = runtime.getClass().getClassLoader().loadClass(RUNTIME);
            Collection<?> descriptions = (Collection<?>) api.getMethod("getComponentDescriptionDTOs", Bundle[].class)
                    .invoke(runtime, (Object) ours.toArray(Bundle[]::new));
            List<String> failed = new ArrayList<>();
            for (Object description : descriptions) {
                if (!(field(description, "configurationPid") instanceof String[] own)
                        || Arrays.stream(own).noneMatch(pids::contains)) {
                    continue;
                }
                Collection<?> configurations = (Collection<?>) api.getMethod("getComponentConfigurationDTOs",
                        description.getClass()).invoke(runtime, description);
                for (Object configuration : configurations) {
                    if (field(configuration, "state") instanceof Integer state && state == FAILED_ACTIVATION) {
                        failed.add(field(description, "name") + ": " + field(configuration, "failure"));
                    }
                }
            }
            return failed;
        } catch (ReflectiveOperationException e) {
            return List.of("could not ask Declarative Services which components failed: " + e);
        } finally {
            context.ungetService(ref);
        }
    }

    private static Object field(Object dto, String name) throws ReflectiveOperationException {
        Field f = dto.getClass().getField(name);
        return f.get(dto);
    }
}
