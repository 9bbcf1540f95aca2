package org.mooncake.osgi.epd.proxy.impl;

import java.io.InputStream;

import javax.ws.rs.GET;
import javax.ws.rs.HeaderParam;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.StreamingOutput;

import org.mooncake.osgi.epd.proxy.impl.ChatOutcome.JsonReply;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jaxrs.whiteboard.annotations.RequireJaxrsWhiteboard;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsName;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsResource;

/**
 * The OpenAI-compatible surface on the JAX-RS Whiteboard's default application:
 * {@code POST /v1/chat/completions} and {@code GET /v1/models}. A thin layer: bytes in, an
 * {@link EpdProxy} call, a {@link Response} out; no JSON provider is needed.
 *
 * <p>A streamed completion is a {@link StreamingOutput} of {@code text/event-stream}: the container
 * calls it on its request thread, every event is written and flushed as soon as the decoder sent
 * it, and a write that fails (the client is gone) aborts the decode. Errors found before streaming
 * started keep their HTTP status (400, 404, 413, 502, 503, 504), which an {@code SseEventSink}
 * (a 200 from the start) could not.
 */
@Component(service = OpenAiResource.class)
@JaxrsResource
@JaxrsName("mooncake.epd.proxy.openai")
@RequireJaxrsWhiteboard
@Path("v1")
public final class OpenAiResource {
    static final String EVENT_STREAM = "text/event-stream";

    private final EpdProxy proxy;

    @Activate
    public OpenAiResource(@Reference EpdProxyComponent component) {
        this(component.proxy());
    }

    OpenAiResource(EpdProxy proxy) {
        this.proxy = proxy;
    }

    @POST
    @Path("chat/completions")
    public Response chat(InputStream body, @HeaderParam("Content-Length") String contentLength,
            @HeaderParam(WorkerClient.REQUEST_ID) String requestId) {
        ChatOutcome outcome = proxy.chat(body, contentLength, requestId);
        if (outcome instanceof StreamReply stream) {
            StreamingOutput relay = stream::relayTo;
            return Response.ok(relay, EVENT_STREAM)
                    .header(WorkerClient.REQUEST_ID, stream.requestId())
                    .header("Cache-Control", "no-cache")
                    .header("X-Accel-Buffering", "no")
                    .build();
        }
        return json((JsonReply) outcome);
    }

    @GET
    @Path("models")
    public Response models() {
        return json(proxy.models());
    }

    /** {@code reply} as a JSON response (no entity for 204), with its request id when it has one. */
    static Response json(JsonReply reply) {
        Response.ResponseBuilder b = Response.status(reply.status());
        if (reply.body() != null) {
            b.entity(reply.body()).type(MediaType.APPLICATION_JSON_TYPE);
        }
        if (reply.requestId() != null) {
            b.header(WorkerClient.REQUEST_ID, reply.requestId());
        }
        return b.build();
    }
}
