/**
 * Health SPI: what a process is for besides the store (an encoder, a prefill worker, the EPD
 * proxy) registers a {@link org.mooncake.osgi.store.spi.health.HealthSource}, and the admin
 * endpoint's one {@code /health} reports it beside the store client and the master: up only when
 * every part is. Load balancers and the EPD proxy's liveness probe read that one answer.
 */
@Export
@Version("1.0.0")
package org.mooncake.osgi.store.spi.health;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
