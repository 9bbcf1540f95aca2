package org.mooncake.osgi.store.rpc.impl;

import java.net.InetSocketAddress;
import java.util.Dictionary;
import java.util.Hashtable;

import org.mooncake.osgi.store.master.MasterService;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * In a process without a master (storage node, pure client): registers the remote master as the
 * {@link MasterService} the embedded client uses, marked {@value RemoteMasterService#REMOTE_PROPERTY}.
 */
@Component(service = {}, immediate = true, configurationPid = RemoteMasterComponent.PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = RemoteMasterComponent.Config.class)
public final class RemoteMasterComponent {
    public static final String PID = "org.mooncake.osgi.store.rpc.client";

    @ObjectClassDefinition(name = "Mooncake remote master")
    public @interface Config {
        @AttributeDefinition(description = "host:port of the master's RPC server")
        String master_address();

        @AttributeDefinition(description = "Deadline of every master call, ms")
        long timeout_ms() default 5000;

        @AttributeDefinition(description = "Largest frame accepted, bytes")
        int max_frame_bytes() default 16 << 20;
    }

    private final RemoteMasterService remote;
    private final ServiceRegistration<MasterService> registration;

    @Activate
    public RemoteMasterComponent(Config c, BundleContext context) {
        String a = c.master_address();
        int colon = a == null ? -1 : a.lastIndexOf(':');
        if (colon <= 0 || c.timeout_ms() <= 0) {
            throw new IllegalArgumentException("master_address must be host:port and timeout_ms > 0, was " + a);
        }
        remote = new RemoteMasterService(new InetSocketAddress(a.substring(0, colon),
                Integer.parseInt(a.substring(colon + 1))), c.timeout_ms(), c.max_frame_bytes());
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(RemoteMasterService.REMOTE_PROPERTY, true);
        props.put("mooncake.master.address", a);
        registration = context.registerService(MasterService.class, remote, props);
    }

    @Deactivate
    void deactivate() {
        registration.unregister();
        remote.close();
    }
}
