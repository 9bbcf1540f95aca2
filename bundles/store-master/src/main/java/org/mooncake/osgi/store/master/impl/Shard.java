package org.mooncake.osgi.store.master.impl;

import java.util.concurrent.locks.ReentrantLock;

/** A slice of the metadata; every read or write of its objects holds {@link #lock}. */
final class Shard {
    final ReentrantLock lock = new ReentrantLock();
    final KeyTable objects = new KeyTable();
}
