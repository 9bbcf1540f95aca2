/**
 * What the Encoder/Prefill/Decode connectors, workers and proxy share: the encoder-cache
 * connector roles, lookup outcomes, the tensor object format ({@link
 * org.mooncake.osgi.epd.api.TensorHeader}), the key namespace ({@link
 * org.mooncake.osgi.epd.api.KeyNamespace}) and content-derived media ids ({@link
 * org.mooncake.osgi.epd.api.MediaIds}).
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.epd.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
