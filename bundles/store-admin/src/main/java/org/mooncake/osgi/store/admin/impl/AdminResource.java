package org.mooncake.osgi.store.admin.impl;

import java.lang.System.Logger.Level;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.servlet.http.HttpServletRequest;
import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreClient;
import org.mooncake.osgi.store.api.StoreException;
import org.mooncake.osgi.store.master.MasterService;
import org.mooncake.osgi.store.spi.eviction.EvictionPolicy;
import org.mooncake.osgi.store.spi.health.HealthSource;
import org.mooncake.osgi.store.spi.metrics.MetricSource;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The admin endpoints as a JAX-RS resource on the whiteboard of the http feature, so that a
 * worker or proxy process serves them on its one HTTP port beside its {@code /v1} resources. The
 * same answers as {@link AdminHttpServer}'s ({@link AdminEndpoints}); HEAD of {@code /health}
 * is JAX-RS's own (the GET without its body). Active only where
 * {@value #PID} is configured: processes without the http feature never load this class, which
 * is why its javax.ws.rs imports are optional.
 */
@Path("/")
@Component(service = AdminResource.class, configurationPid = AdminResource.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE,
        property = {"osgi.jaxrs.resource=true", "osgi.jaxrs.name=mooncake.admin"})
@Designate(ocd = AdminResource.Config.class)
public final class AdminResource {
    public static final String PID = "org.mooncake.osgi.store.admin.rest";
    private static final System.Logger LOG = System.getLogger(AdminResource.class.getName());

    @ObjectClassDefinition(name = "Mooncake admin endpoints on the JAX-RS whiteboard",
            description = "Serves /health, /metrics, /stats, /query_key and /get_all_segments on the http feature's port")
    public @interface Config {
        @AttributeDefinition(description = "The endpoints served, any of health, metrics, stats, query_key, "
                + "get_all_segments (comma-separated values allowed); the others answer 404. A port open to "
                + "clients may keep to health and metrics")
        String[] endpoints() default {AdminEndpoints.HEALTH, AdminEndpoints.METRICS, AdminEndpoints.STATS,
            AdminEndpoints.QUERY_KEY, AdminEndpoints.SEGMENTS};

        @AttributeDefinition(description = "Callers must prove who they are: a client certificate (Felix HTTP's HTTPS "
                + "with org.apache.felix.https.clientcertificate=needs; a profile's https=true) or a bearer token, "
                + "and their identity bounds what they read (docs/security.md). /health stays open; a plain-HTTP "
                + "request without a token is refused 401")
        boolean auth_required() default false;

        @AttributeDefinition(description = "File of access tokens (the master RPC's format: 'TOKEN tenant=NAME "
                + "role=client|admin'), presented as Authorization: Bearer TOKEN; set: callers must identify "
                + "themselves as with auth.required. Empty: no tokens")
        String auth_tokens_file() default "";
    }

    /** The servlet request's attribute holding the client's certificate chain (Jetty 12 sets the jakarta name). */
    static final List<String> CERTIFICATE_ATTRIBUTES = List.of("jakarta.servlet.request.X509Certificate",
            "javax.servlet.request.X509Certificate");

    private final AdminEndpoints endpoints = new AdminEndpoints();
    /** Replaced by {@link #modified}. */
    private volatile Set<String> served;
    /** Replaced by {@link #modified}. */
    private volatile AdminAccess access;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile MasterService master;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile StoreClient client;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<EvictionPolicy> policies = List.of();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<MetricSource> metricSources = List.of();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<HealthSource> healthSources = List.of();

    /** A configuration naming an unknown endpoint fails activation, with the name. */
    @Activate
    public AdminResource(Config config) {
        served = served(config);
        access = access(config);
        LOG.log(Level.INFO, "admin endpoints {0} on the JAX-RS whiteboard{1}", served, described(access));
    }

    static AdminAccess access(Config config) {
        String file = config.auth_tokens_file() == null ? "" : config.auth_tokens_file().strip();
        return AdminAccess.of(config.auth_required(), file.isEmpty() ? null : AdminTokens.read(java.nio.file.Path.of(file)));
    }

    private static String described(AdminAccess a) {
        return !a.required() ? "" : ", callers identified by client certificate" + (a.tokens() == null ? "" : " or " + a.tokens());
    }

    /** A changed configuration applies at the next request; a broken one is refused and the old one stays. */
    @Modified
    void modified(Config config) {
        try {
            Set<String> names = served(config);
            AdminAccess a = access(config);
            served = names;
            access = a;
            LOG.log(Level.INFO, "admin endpoints {0} on the JAX-RS whiteboard{1}", served, described(a));
        } catch (RuntimeException e) {
            LOG.log(Level.ERROR, "rejected " + PID + " configuration, still serving " + served + ": " + e.getMessage());
        }
    }

    static Set<String> served(Config config) {
        Set<String> names = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (String value : config.endpoints()) {
            for (String name : value.split(",")) {
                String n = name.trim();
                if (AdminEndpoints.ALL.contains(n)) {
                    names.add(n);
                } else if (!n.isEmpty()) {
                    unknown.add(n);
                }
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("endpoints names " + unknown + "; known: " + AdminEndpoints.ALL);
        }
        return Collections.unmodifiableSet(names);
    }

    @GET
    @Path(AdminEndpoints.HEALTH)
    public Response health(@Context UriInfo uri, @Context HttpServletRequest request) {
        return answer(AdminEndpoints.HEALTH, uri, request);
    }

    @GET
    @Path(AdminEndpoints.METRICS)
    public Response metrics(@Context UriInfo uri, @Context HttpServletRequest request) {
        return answer(AdminEndpoints.METRICS, uri, request);
    }

    @GET
    @Path(AdminEndpoints.STATS)
    public Response stats(@Context UriInfo uri, @Context HttpServletRequest request) {
        return answer(AdminEndpoints.STATS, uri, request);
    }

    @GET
    @Path(AdminEndpoints.QUERY_KEY)
    public Response queryKey(@Context UriInfo uri, @Context HttpServletRequest request) {
        return answer(AdminEndpoints.QUERY_KEY, uri, request);
    }

    @GET
    @Path(AdminEndpoints.SEGMENTS)
    public Response segments(@Context UriInfo uri, @Context HttpServletRequest request) {
        return answer(AdminEndpoints.SEGMENTS, uri, request);
    }

    /** The client's certificate chain where Felix HTTP's HTTPS asked for one, else null. */
    static X509Certificate[] certificates(HttpServletRequest r) {
        for (String name : CERTIFICATE_ATTRIBUTES) {
            if (r.getAttribute(name) instanceof X509Certificate[] chain && chain.length > 0) {
                return chain;
            }
        }
        return null;
    }

    /**
     * The answer to {@code endpoint}. {@code request} (passed per call, not injected into a field:
     * a field would hold CXF's thread-local proxy) carries the client certificate and the
     * Authorization header; null in unit tests that need neither.
     */
    private Response answer(String endpoint, UriInfo uri, HttpServletRequest request) {
        Answer a;
        if (!served.contains(endpoint)) {
            a = Answer.error(404, ErrorCode.INVALID_PARAMS, "/" + endpoint + " is not served here (" + PID + " endpoints)");
        } else {
            Map<String, List<String>> query = uri == null ? Map.of() : uri.getQueryParameters();
            HttpServletRequest r = request;
            try {
                Answer refused = access.refusal(endpoint, query, r == null ? null : certificates(r),
                        r == null ? null : r.getHeader("Authorization"));
                a = refused != null ? refused
                        : endpoints.answer(endpoint, query, new Parts(master, client, policies, metricSources, healthSources));
            } catch (StoreException e) {
                a = Answer.error(400, e.errorCode(), e.getMessage());
            }
        }
        Response.ResponseBuilder b = Response.status(a.status()).type(a.contentType()).entity(a.body());
        if (a.status() == 401) {
            b.header("WWW-Authenticate", Answer.CHALLENGE);
        }
        return b.build();
    }
}
