package org.mooncake.osgi.store.master.impl;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

import org.mooncake.osgi.store.api.ObjectKey;

/** A slice of the metadata; every read or write of its objects holds {@link #lock}. */
final class Shard {
    final ReentrantLock lock = new ReentrantLock();
    final Map<ObjectKey, ObjectMeta> objects = new HashMap<>();
}
