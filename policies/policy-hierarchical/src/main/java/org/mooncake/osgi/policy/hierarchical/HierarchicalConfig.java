package org.mooncake.osgi.policy.hierarchical;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Metatype of {@value HierarchicalPolicy#PID}. */
@ObjectClassDefinition(name = "Mooncake hierarchical eviction",
        description = "Assign / Evict / Fallback over a scope tree of tenant, data type and priority")
public @interface HierarchicalConfig {
    @AttributeDefinition(description = "Scope levels from the root down, any of tenant, type, priority (soft-pinned or not); none: one flat scope")
    String[] levels() default {"tenant", "type"};

    @AttributeDefinition(description = "How victims are ranked inside a scope: the name of a ranking service (lease, type-aware, cost-aware)")
    String ranking() default "lease";

    @AttributeDefinition(description = "Quotas as level=value/level=value=ratio of capacity, levels in tree order, * for any value; e.g. tenant=acme=0.5, tenant=*/type=HIDDEN_STATE=0.12")
    String[] quotas() default {};

    @AttributeDefinition(description = "A ranking that does not follow lease order scores at most this many of a scope's oldest candidates")
    int scan_objects() default 131_072;

}
