package org.mooncake.osgi.store.rpc.impl;

import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.mooncake.osgi.store.api.ObjectKey;
import org.mooncake.osgi.store.master.MasterService;

/**
 * A master whose {@code exists} of key {@value #SLOW} takes until the test releases it (at most
 * 30 s); every other key exists at once. Other operations are not served.
 */
final class SlowMaster {
    static final String SLOW = "slow";

    private final CountDownLatch released = new CountDownLatch(1);
    private final MasterService master = (MasterService) Proxy.newProxyInstance(MasterService.class.getClassLoader(),
            new Class<?>[] {MasterService.class}, (proxy, method, args) -> {
                if (method.getName().equals("exists") && args[0] instanceof ObjectKey key) {
                    if (key.key().equals(SLOW)) {
                        released.await(30, TimeUnit.SECONDS);
                    }
                    return true;
                }
                throw new UnsupportedOperationException(method.getName() + " is not served by the slow master");
            });

    MasterService master() {
        return master;
    }

    void release() {
        released.countDown();
    }
}
