package org.mooncake.osgi.epd.worker.impl;

import java.io.InputStream;

import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.core.Response;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jaxrs.whiteboard.annotations.RequireJaxrsWhiteboard;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsName;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsResource;

/**
 * {@code POST /epd/probe} with {@code {"bytes":N,"count":K}}: plain store puts and gets of that
 * size through this worker's client ({@link StoreProbe}), the baseline the EPD demo sets beside
 * the connectors' transfers.
 */
@Component(service = ProbeResource.class)
@JaxrsResource
@JaxrsName("mooncake.epd.worker.probe")
@RequireJaxrsWhiteboard
@Path("epd")
public final class ProbeResource {
    private final WorkerComponent worker;

    @Activate
    public ProbeResource(@Reference WorkerComponent worker) {
        this.worker = worker;
    }

    @POST
    @Path("probe")
    public Response probe(InputStream body) {
        return ChatResource.json(worker.probe(body), null);
    }
}
