package org.mooncake.osgi.store.spi.health;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One part of a process's health, named by the role it plays ({@code encoder}, {@code proxy},
 * ...). Register as an OSGi service. Called on the admin endpoint's HTTP thread for every probe:
 * answer from state already at hand, never wait for I/O.
 */
@ConsumerType
public interface HealthSource {

    /** The part's name in {@code /health}: the role this process plays. */
    String name();

    /** Whether the part can serve now, and what an operator needs to see why not. */
    Health health();
}
