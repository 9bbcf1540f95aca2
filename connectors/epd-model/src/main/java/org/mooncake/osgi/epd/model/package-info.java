/**
 * A small but real multimodal transformer for reference Encoder / Prefill / Decode workers:
 * image and video decoding, a vision encoder with a Qwen2.5-VL style merger, and a
 * byte-vocabulary decoder with an exportable KV cache. Weights are seeded random, every
 * computation is bit-exact across runs, threads and processes, so a disaggregated run can be
 * compared token for token with an aggregated one.
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.epd.model;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
