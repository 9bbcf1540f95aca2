/**
 * Eviction planning SPI. A policy reads candidate views and returns victims in the order it
 * would evict them; the master alone re-validates and removes them. Since 1.1 a policy may also
 * learn from what happens ({@link org.mooncake.osgi.store.spi.eviction.AccessObserver}) and offer
 * its ranking to policies that compose others
 * ({@link org.mooncake.osgi.store.spi.eviction.CandidateRanking}). Since 1.2 a round tells
 * its victims to observers in batches; since 1.3 a candidate may be put as read by its group
 * only; since 1.4 a policy may publish what it has learned as metrics
 * ({@link org.mooncake.osgi.store.spi.eviction.EvictionPolicy#learned}).
 */
@Export
@Version("1.5.0")
package org.mooncake.osgi.store.spi.eviction;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
