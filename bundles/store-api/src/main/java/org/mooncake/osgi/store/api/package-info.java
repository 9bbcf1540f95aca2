/**
 * The store's object model and client API: keys, tenants, data types, replicate configuration,
 * error codes numerically compatible with Mooncake's, and {@link org.mooncake.osgi.store.api.StoreClient}.
 */
@Export
@Version("1.2.0")
package org.mooncake.osgi.store.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
