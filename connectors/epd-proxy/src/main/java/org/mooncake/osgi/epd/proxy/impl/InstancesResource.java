package org.mooncake.osgi.epd.proxy.impl;

import java.io.InputStream;

import javax.ws.rs.DELETE;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.PathParam;
import javax.ws.rs.core.Response;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jaxrs.whiteboard.annotations.RequireJaxrsWhiteboard;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsName;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsResource;

/** The instance registry over REST: {@code POST /instances}, {@code GET /instances}, {@code DELETE /instances/{id}}. */
@Component(service = InstancesResource.class)
@JaxrsResource
@JaxrsName("mooncake.epd.proxy.instances")
@RequireJaxrsWhiteboard
@Path("instances")
public final class InstancesResource {
    private final EpdProxy proxy;

    @Activate
    public InstancesResource(@Reference EpdProxyComponent component) {
        this(component.proxy());
    }

    InstancesResource(EpdProxy proxy) {
        this.proxy = proxy;
    }

    @POST
    public Response register(InputStream body) {
        return OpenAiResource.json(proxy.register(body));
    }

    @GET
    public Response list() {
        return OpenAiResource.json(proxy.instances());
    }

    @DELETE
    @Path("{id}")
    public Response remove(@PathParam("id") String id) {
        return OpenAiResource.json(proxy.deregister(id));
    }
}
