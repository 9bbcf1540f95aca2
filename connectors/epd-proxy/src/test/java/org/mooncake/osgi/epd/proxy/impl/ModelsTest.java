package org.mooncake.osgi.epd.proxy.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/** {@code GET /v1/models}: the union of the prefill and decode instances' models, or a static list. */
class ModelsTest {

    static List<String> ids(HttpResponse<String> r) throws Exception {
        assertEquals(200, r.statusCode(), r.body());
        JsonNode list = ProxyFixture.json(r);
        assertEquals("list", list.path("object").asText());
        List<String> ids = new ArrayList<>();
        list.path("data").forEach(m -> {
            assertEquals("model", m.path("object").asText());
            ids.add(m.path("id").asText());
        });
        return ids;
    }

    @Test
    void unionOfPrefillAndDecodeModels() throws Exception {
        try (FakeWorker e = new FakeWorker(Role.ENCODE, "e1"); FakeWorker p = new FakeWorker(Role.PREFILL, "p1");
                FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(e, p, d).start()) {
            e.models = List.of("encoder-only");
            p.models = List.of("qwen-vl");
            d.models = List.of("qwen-vl", "qwen-vl-lora");
            assertEquals(List.of("qwen-vl", "qwen-vl-lora"), ids(f.get("/v1/models")));
            assertEquals(0, e.modelCalls.get(), "encoders are not asked");

            // cached: a second listing asks nobody
            int asked = p.modelCalls.get() + d.modelCalls.get();
            ids(f.get("/v1/models"));
            assertEquals(asked, p.modelCalls.get() + d.modelCalls.get());

            String lora = "{\"model\":\"qwen-vl-lora\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
            assertEquals(200, f.post("/v1/chat/completions", lora).statusCode());
            HttpResponse<String> unknown = f.post("/v1/chat/completions",
                    "{\"model\":\"encoder-only\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}");
            assertEquals(404, unknown.statusCode());
            assertEquals("model_not_found", ProxyFixture.json(unknown).path("error").path("code").asText());
        }
    }

    @Test
    void registryChangeRefreshesTheUnion() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                FakeWorker d2 = new FakeWorker(Role.DECODE, "d2");
                ProxyFixture f = ProxyFixture.settings(p, d).start()) {
            d2.models = List.of("other");
            assertEquals(List.of(FakeWorker.MODEL), ids(f.get("/v1/models")));
            assertEquals(201, f.post("/instances", RegistryTest.instance("decode", d2.url())).statusCode());
            assertEquals(List.of(FakeWorker.MODEL, "other"), ids(f.get("/v1/models")));
        }
    }

    @Test
    void staticModelsAreServedWithoutAskingWorkers() throws Exception {
        try (FakeWorker p = new FakeWorker(Role.PREFILL, "p1"); FakeWorker d = new FakeWorker(Role.DECODE, "d1");
                ProxyFixture f = ProxyFixture.settings(p, d).models("a", "test-model").start()) {
            assertEquals(List.of("a", "test-model"), ids(f.get("/v1/models")));
            assertEquals(200, f.post("/v1/chat/completions", ProxyFixture.textOnly(false)).statusCode());
            assertEquals(404, f.post("/v1/chat/completions",
                    "{\"model\":\"b\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}").statusCode());
            assertEquals(0, p.modelCalls.get() + d.modelCalls.get());
        }
    }

    @Test
    void noInstanceMeansAnEmptyList() throws Exception {
        try (ProxyFixture f = ProxyFixture.settings().start()) {
            assertTrue(ids(f.get("/v1/models")).isEmpty());
        }
    }
}
