package org.mooncake.osgi.store.console.impl;

import java.lang.System.Logger.Level;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import org.apache.felix.webconsole.spi.SecurityProvider;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Puts {@link DefaultPasswordRefusal} in front of the console's login when Felix HTTP binds an
 * address other than loopback (read once: the framework property does not change while the
 * process runs). On loopback it does nothing and the console's own login (admin/admin until
 * configured) applies. The refusal is the highest-ranked security provider, so the console asks it
 * first; it passes other logins to the highest-ranked provider besides itself.
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

    private final ServiceRegistration<SecurityProvider> refusal;

    @Activate
    public ExposedBindGuard(BundleContext context) {
        String host = context.getProperty(BindAddress.HOST_PROPERTY);
        if (BindAddress.isLoopback(host)) {
            refusal = null;
            return;
        }
        DefaultPasswordRefusal guard = new DefaultPasswordRefusal(host, this::next);
        LOG.log(Level.WARNING, guard.reason());
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(Constants.SERVICE_RANKING, Integer.MAX_VALUE);
        props.put(GUARD_PROPERTY, Boolean.TRUE);
        props.put(Constants.SERVICE_DESCRIPTION, "Refuses the web console's default password on a non-loopback bind");
        refusal = context.registerService(SecurityProvider.class, guard, props);
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
        if (refusal != null) {
            refusal.unregister();
        }
    }
}
