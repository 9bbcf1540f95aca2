package org.mooncake.osgi.epd.worker.impl;

import org.mooncake.osgi.epd.api.EncoderCacheConnector;
import org.mooncake.osgi.epd.api.KvCacheConnector;

/** The connectors bound now (either may be null: a worker's role needs at most what it has). */
interface Connectors {
    EncoderCacheConnector hiddenStates();

    KvCacheConnector kv();
}
