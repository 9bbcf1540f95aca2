package org.mooncake.osgi.epd.worker.impl;

import java.io.IOException;
import java.io.InputStream;

import javax.ws.rs.GET;
import javax.ws.rs.HeaderParam;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.core.MediaType;
import javax.ws.rs.core.Response;
import javax.ws.rs.core.StreamingOutput;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.jaxrs.whiteboard.annotations.RequireJaxrsWhiteboard;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsName;
import org.osgi.service.jaxrs.whiteboard.propertytypes.JaxrsResource;

/**
 * The worker's OpenAI surface on the JAX-RS whiteboard: {@code POST /v1/chat/completions} and
 * {@code GET /v1/models}. Bytes in, JSON or SSE out; the work is the {@link WorkerComponent}'s.
 * (Under {@code v1}: store-admin's resource holds the root, for {@code /health} and {@code /metrics}.)
 */
@Component(service = ChatResource.class)
@JaxrsResource
@JaxrsName("mooncake.epd.worker")
@RequireJaxrsWhiteboard
@Path("v1")
public final class ChatResource {
    static final String REQUEST_ID = "X-Request-Id";
    private final WorkerComponent worker;

    @Activate
    public ChatResource(@Reference WorkerComponent worker) {
        this.worker = worker;
    }

    @POST
    @Path("chat/completions")
    public Response chat(InputStream body, @HeaderParam(REQUEST_ID) String requestId) {
        byte[] bytes;
        try {
            bytes = worker.readBody(body);
        } catch (ApiError e) {
            return json(new Worker.Json(e.status, Replies.error(e)), requestId);
        } catch (IOException e) {
            return json(new Worker.Json(400, Replies.error(ApiError.badRequest("invalid_body", null, e.getMessage()))),
                    requestId);
        }
        Worker.Reply reply = worker.worker().chat(bytes, requestId);
        if (reply instanceof Worker.Stream s) {
            StreamingOutput out = s::writeTo;
            return Response.ok(out, "text/event-stream").header(REQUEST_ID, s.id()).header("Cache-Control", "no-cache")
                    .build();
        }
        return json((Worker.Json) reply, requestId);
    }

    @GET
    @Path("models")
    public Response models() {
        return json(new Worker.Json(200, Replies.models(worker.worker().models())), null);
    }

    static Response json(Worker.Json reply, String requestId) {
        Response.ResponseBuilder b = Response.status(reply.status()).entity(reply.body().toString())
                .type(MediaType.APPLICATION_JSON_TYPE);
        return requestId == null ? b.build() : b.header(REQUEST_ID, requestId).build();
    }
}
