package org.mooncake.osgi.policy.costaware;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** Metatype of {@value CostAwarePolicy#PID}; every attribute has a default meant for every workload. */
@ObjectClassDefinition(name = "Mooncake cost-aware eviction",
        description = "Evicts the objects expected to save the least recompute time per byte held")
public @interface CostAwareConfig {
    @AttributeDefinition(description = "Recompute cost assumed for objects put without a cost hint, as TYPE=ms_per_MiB; unnamed types: 1")
    String[] default_cost_ms_per_mib() default {};

    @AttributeDefinition(description = "A round ranks at most this many of the oldest candidates, then goes on in lease order")
    int scan_objects() default 131_072;

    @AttributeDefinition(description = "Learned figures fade by half over this many hits and evictions")
    long half_life_events() default 100_000;

    @AttributeDefinition(description = "Evicted keys remembered so a write-back counts as the hit it would have been")
    int ghost_entries() default 262_144;

    @AttributeDefinition(description = "Events a class needs before its own figures outweigh its data type's")
    double prior_events() default 8;

    @AttributeDefinition(description = "Worth is compared in steps of this factor; within a step the least recently used goes first")
    double worth_resolution() default 4;

    @AttributeDefinition(description = "An object put as read by its group only goes first once its group has written nothing for "
            + "longer than this quantile of the gaps after which groups wrote again (0 turns it off)")
    double group_end_quantile() default 0.99;

    @AttributeDefinition(description = "The group-only hint is followed while at most this share of the group-only objects of ended "
            + "groups is read again (a hit, or a write-back after their eviction); above it they are ranked by learned worth. 1: always")
    double group_only_read_again_max() default 0.1;

}
