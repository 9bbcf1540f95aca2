package org.mooncake.osgi.store.admin.impl;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.core.Context;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.UriInfo;

import org.mooncake.osgi.store.api.ErrorCode;
import org.mooncake.osgi.store.api.StoreClient;
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
    }

    private final AdminEndpoints endpoints = new AdminEndpoints();
    /** Replaced by {@link #modified}. */
    private volatile Set<String> served;

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
        LOG.log(Level.INFO, "admin endpoints {0} on the JAX-RS whiteboard", served);
    }

    /** A changed configuration applies at the next request; a broken one is refused and the old one stays. */
    @Modified
    void modified(Config config) {
        try {
            served = served(config);
            LOG.log(Level.INFO, "admin endpoints {0} on the JAX-RS whiteboard", served);
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
    public Response health(@Context UriInfo uri) {
        return answer(AdminEndpoints.HEALTH, uri);
    }

    @GET
    @Path(AdminEndpoints.METRICS)
    public Response metrics(@Context UriInfo uri) {
        return answer(AdminEndpoints.METRICS, uri);
    }

    @GET
    @Path(AdminEndpoints.STATS)
    public Response stats(@Context UriInfo uri) {
        return answer(AdminEndpoints.STATS, uri);
    }

    @GET
    @Path(AdminEndpoints.QUERY_KEY)
    public Response queryKey(@Context UriInfo uri) {
        return answer(AdminEndpoints.QUERY_KEY, uri);
    }

    @GET
    @Path(AdminEndpoints.SEGMENTS)
    public Response segments(@Context UriInfo uri) {
        return answer(AdminEndpoints.SEGMENTS, uri);
    }

    private Response answer(String endpoint, UriInfo uri) {
        Answer a;
        if (!served.contains(endpoint)) {
            a = Answer.error(404, ErrorCode.INVALID_PARAMS, "/" + endpoint + " is not served here (" + PID + " endpoints)");
        } else {
            Map<String, List<String>> query = uri == null ? Map.of() : uri.getQueryParameters();
            a = endpoints.answer(endpoint, query, new Parts(master, client, policies, metricSources, healthSources));
        }
        return Response.status(a.status()).type(a.contentType()).entity(a.body()).build();
    }
}
