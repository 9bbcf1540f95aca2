package org.mooncake.osgi.store.console.impl;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;

import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.owasp.encoder.Encode;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * The Mooncake page of the Felix Web Console ({@code /system/console/mooncake}). The console finds
 * it by its {@code felix.webconsole.*} properties, draws its header and menu around what a GET
 * writes, and passes a POST (the policy switch) straight here. The master, the client and the
 * policies are optional: the page shows what this process has.
 */
@Component(service = Servlet.class, property = {"felix.webconsole.label=" + MooncakePlugin.LABEL,
        "felix.webconsole.title=Mooncake", "felix.webconsole.category=Mooncake"})
public final class MooncakePlugin extends HttpServlet {
    static final String LABEL = "mooncake";
    /** Request attribute where the console puts this page's address. */
    static final String PLUGIN_ROOT_ATTRIBUTE = "felix.webconsole.pluginRoot";
    /** Query parameter of the page shown after a switch. */
    static final String SWITCHED_PARAM = "switched";

    private static final System.Logger LOG = System.getLogger(MooncakePlugin.class.getName());

    private final transient PolicySwitch policySwitch;
    /** Proves that a switch was posted from this page: another site cannot read it (no CORS here). */
    private final String token;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile MasterService master;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private transient volatile StoreClient client;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private transient volatile List<EvictionPolicy> policies = List.of();

    @Activate
    public MooncakePlugin(@Reference ConfigurationAdmin configAdmin) {
        this.policySwitch = new PolicySwitch(configAdmin);
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.token = HexFormat.of().formatHex(random);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        MooncakePage page = new MooncakePage(pluginRoot(request), token);
        String switched = request.getParameter(SWITCHED_PARAM);
        String html = page.render(StoreView.read(master, client, policies), request.getParameter(PolicyHtml.POLICY_PARAM),
                switched, switched == null ? "" : policySwitch.kept());
        response.getWriter().write(html);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!MessageDigest.isEqual(token.getBytes(StandardCharsets.UTF_8),
                String.valueOf(request.getParameter(PolicyHtml.TOKEN_PARAM)).getBytes(StandardCharsets.UTF_8))) {
            plain(response, HttpServletResponse.SC_FORBIDDEN,
                    "The policy switch must be confirmed on the Mooncake page (its token is missing or stale): reload the page.");
            return;
        }
        MasterService m = master;
        if (m == null) {
            plain(response, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "No master runs in this process: its policy "
                    + "is chosen where the master runs.");
            return;
        }
        String policy = request.getParameter(PolicyHtml.POLICY_PARAM);
        List<String> available = m.stats().availablePolicies();
        if (policy == null || !(policy.isEmpty() || available.contains(policy))) {
            plain(response, HttpServletResponse.SC_BAD_REQUEST, "No eviction policy named '" + policy
                    + "' is deployed here; available: " + String.join(", ", available) + ".");
            return;
        }
        policySwitch.select(policy);
        LOG.log(Level.INFO, "eviction policy set to " + PolicyHtml.label(policy) + " from the web console by "
                + request.getRemoteUser() + " at " + request.getRemoteAddr());
        // POST, then redirect, then GET: a reload of the result does not post again
        response.setStatus(HttpServletResponse.SC_SEE_OTHER);
        response.setHeader("Location", pluginRoot(request) + "?" + SWITCHED_PARAM + "=" + Encode.forUriComponent(policy));
    }

    private static String pluginRoot(HttpServletRequest request) {
        Object root = request.getAttribute(PLUGIN_ROOT_ATTRIBUTE);
        return root instanceof String s ? s : request.getRequestURI();
    }

    private static void plain(HttpServletResponse response, int status, String text) throws IOException {
        response.setStatus(status);
        response.setContentType("text/plain; charset=UTF-8");
        response.getWriter().write(text + "\n");
    }
}
