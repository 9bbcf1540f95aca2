package org.mooncake.osgi.device.cuda;

import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.function.Supplier;

import org.mooncake.osgi.store.spi.device.DeviceMemory;
import org.mooncake.osgi.store.spi.device.MemoryKind;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Registers a {@link CudaDeviceMemory} as the {@link DeviceMemory} service where the CUDA driver
 * works, and nothing elsewhere. It is an immediate component with no service of its own: it
 * always activates, probes {@code libcuda.so.1} once, and either registers the service (removed
 * at deactivation, after which the device memory is freed) or logs one line saying why device
 * memory is off ("no CUDA driver here (libcuda.so.1 does not load: ...): device memory is off").
 * A component whose activate method threw would leave SCR's stack trace in the log instead, and a
 * delayed service component would be visible as a service before the driver was even tried.
 */
@Component(service = {}, immediate = true, configurationPid = CudaDeviceMemoryComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = CudaDeviceMemoryComponent.Config.class)
public final class CudaDeviceMemoryComponent {
    public static final String PID = "org.mooncake.osgi.device.cuda";
    private static final System.Logger LOG = System.getLogger(CudaDeviceMemoryComponent.class.getName());

    @ObjectClassDefinition(name = "Mooncake CUDA device memory",
            description = "GPU memory through the CUDA driver (libcuda.so.1); registered only where the driver works")
    public @interface Config {
        @AttributeDefinition(description = "Offer device memory where a CUDA driver works; false turns it off")
        boolean enabled() default true;

        @AttributeDefinition(description = "CUDA device ordinals to serve, comma-separated, in order: device index i "
                + "of the service is the i-th (\"2,3\"); empty serves every device the driver sees (after "
                + "CUDA_VISIBLE_DEVICES)")
        String devices() default "";
    }

    /** Settings outside ConfigAdmin (tests, embedding). */
    public static Config config(boolean enabled, String devices) {
        return new Config() {
            @Override
            public Class<? extends java.lang.annotation.Annotation> annotationType() {
                return Config.class;
            }

            @Override
            public boolean enabled() {
                return enabled;
            }

            @Override
            public String devices() {
                return devices;
            }
        };
    }

    private final String status;
    private final CudaDeviceMemory memory;
    private final ServiceRegistration<DeviceMemory> registration;

    @Activate
    public CudaDeviceMemoryComponent(BundleContext context, Config config) {
        this(context, config, CudaDriver::load);
    }

    CudaDeviceMemoryComponent(BundleContext context, Config config, Supplier<CudaDriver.Load> loader) {
        CudaDeviceMemory m = null;
        String why;
        if (!config.enabled()) {
            why = "CUDA device memory is turned off by configuration (" + PID + " enabled=false)";
        } else {
            CudaDriver.Load load = loader.get();
            if (load.driver().isEmpty()) {
                why = load.reason();
            } else {
                String devices = config.devices() == null ? "" : config.devices().strip();
                try {
                    m = devices.isEmpty() ? CudaDeviceMemory.allDevices(load.driver().get())
                            : new CudaDeviceMemory(load.driver().get(), ordinals(devices));
                    why = null;
                } catch (RuntimeException e) {
                    why = "CUDA devices \"" + devices + "\" cannot be served (" + e.getMessage() + ")" + CudaDriver.OFF;
                }
            }
        }
        if (m == null) {
            LOG.log(Level.INFO, why);
            this.status = why;
            this.memory = null;
            this.registration = null;
            return;
        }
        this.memory = m;
        this.status = m.describe();
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(DeviceMemory.KIND_PROPERTY, MemoryKind.CUDA_DEVICE.name());
        props.put(DeviceMemory.COUNT_PROPERTY, m.deviceCount());
        props.put(Constants.SERVICE_DESCRIPTION, status);
        try {
            this.registration = context.registerService(DeviceMemory.class, m, props);
        } catch (RuntimeException e) {
            m.close();
            throw e;
        }
        LOG.log(Level.INFO, "device memory on: " + status);
    }

    /** {@code "0, 2"} as ordinals. */
    static int[] ordinals(String devices) {
        try {
            return Arrays.stream(devices.split(",")).map(String::strip).mapToInt(Integer::parseInt).toArray();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("devices=" + devices + " is not a comma-separated list of CUDA ordinals");
        }
    }

    /** What the component did: the served devices, or why device memory is off. */
    public String status() {
        return status;
    }

    /** Whether it registered the service. */
    public boolean registered() {
        return registration != null;
    }

    @Deactivate
    void deactivate() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping: the framework unregistered it
            }
            memory.close();
        }
    }
}
