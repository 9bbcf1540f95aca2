/**
 * Eviction planning SPI. A policy reads candidate views and returns victims in the order it
 * would evict them; the master alone re-validates and removes them.
 */
@Export
@Version("1.1.0")
package org.mooncake.osgi.store.spi.eviction;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
