/**
 * The master's service: metadata, allocation, two-phase put, leases, pins and liveness.
 * Clients use it to place and find objects; bytes never pass through it.
 */
@Export
@Version("1.3.0")
package org.mooncake.osgi.store.master;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
