package org.mooncake.osgi.store.console.impl;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import org.apache.felix.webconsole.spi.SecurityProvider;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Puts {@link DefaultPasswordRefusal} in front of the console's login, as the highest-ranked
 * security provider, so the console asks it first; it passes other logins to the highest-ranked
 * provider besides itself. The bind it judges is Felix HTTP's effective one: the host of
 * configuration {@value #HTTP_PID} where that sets one (an etc/ file, or the console's own
 * Configuration page), else the framework property. So moving Jetty off loopback at run time
 * closes the default password too; on loopback the console's own login (admin/admin until
 * configured) applies.
 */
@Component(immediate = true, service = {})
public final class ExposedBindGuard {
    /** Marks the refusal's registration, which must not be its own next provider. */
    static final String GUARD_PROPERTY = "mooncake.console.default.password.guard";

    private static final System.Logger LOG = System.getLogger(ExposedBindGuard.class.getName());

    private static final Comparator<Map<String, Object>> RANK = Comparator
            .<Map<String, Object>>comparingInt(p -> p.get(Constants.SERVICE_RANKING) instanceof Integer r ? r : 0)
            .thenComparing(p -> -((Long) p.get(Constants.SERVICE_ID)));

    /** Every other security provider with its service properties. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            target = "(!(" + GUARD_PROPERTY + "=true))")
    private volatile List<Map.Entry<Map<String, Object>, SecurityProvider>> providers = List.of();

    /** Where Felix HTTP reads its settings, the bind among them, when they are configured. */
    static final String HTTP_PID = "org.apache.felix.http";

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile ConfigurationAdmin configurationAdmin;

    private final BundleContext context;
    private final ServiceRegistration<SecurityProvider> refusal;

    @Activate
    public ExposedBindGuard(BundleContext context) {
        this.context = context;
        DefaultPasswordRefusal guard = new DefaultPasswordRefusal(this::effectiveHost, this::next);
        if (guard.exposed()) {
            LOG.log(Level.WARNING, guard.reason());
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(Constants.SERVICE_RANKING, Integer.MAX_VALUE);
        props.put(GUARD_PROPERTY, Boolean.TRUE);
        props.put(Constants.SERVICE_DESCRIPTION, "Refuses the web console's default password on a non-loopback bind");
        refusal = context.registerService(SecurityProvider.class, guard, props);
    }

    /** The host Felix HTTP binds now: its configuration's, else the framework property's. */
    String effectiveHost() {
        return effectiveHost(configurationAdmin, context.getProperty(BindAddress.HOST_PROPERTY));
    }

    static String effectiveHost(ConfigurationAdmin admin, String frameworkHost) {
        if (admin != null) {
            try {
                Configuration[] found = admin.listConfigurations("(" + Constants.SERVICE_PID + "=" + HTTP_PID + ")");
                Dictionary<String, Object> settings = found == null || found.length == 0 ? null : found[0].getProperties();
                Object host = settings == null ? null : settings.get(BindAddress.HOST_PROPERTY);
                if (host != null) {
                    return host.toString();
                }
            } catch (IOException | InvalidSyntaxException e) {
                // unknown: the framework property decides, and an unset one counts as exposed
                LOG.log(Level.DEBUG, "could not read configuration " + HTTP_PID, e);
            }
        }
        return frameworkHost;
    }

    /** The highest-ranked provider other than the refusal, or null while there is none. */
    SecurityProvider next() {
        return highestRanked(providers);
    }

    /** The provider the framework would rank first: highest service.ranking, then lowest service.id. */
    static SecurityProvider highestRanked(List<Map.Entry<Map<String, Object>, SecurityProvider>> providers) {
        return providers.stream().max(Map.Entry.comparingByKey(RANK)).map(Map.Entry::getValue).orElse(null);
    }

    @Deactivate
    void deactivate() {
        refusal.unregister();
    }
}
