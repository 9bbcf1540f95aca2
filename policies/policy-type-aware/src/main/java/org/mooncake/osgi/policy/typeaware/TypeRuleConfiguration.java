package org.mooncake.osgi.policy.typeaware;

import org.mooncake.osgi.store.api.ObjectDataType;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * One factory configuration per data type. A configuration with an invalid value is refused (the
 * error names the property): a new one never becomes a rule, and a changed one keeps the rule it
 * had, because a change is applied in place ({@link #modified}) rather than by a restart that
 * would drop the rule first.
 */
@Component(service = TypeRuleConfiguration.class, configurationPid = TypeRuleConfiguration.FACTORY_PID,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = TypeRuleConfiguration.Config.class, factory = true)
public final class TypeRuleConfiguration {
    public static final String FACTORY_PID = "org.mooncake.osgi.policy.typeaware.rule";

    @ObjectClassDefinition(name = "Mooncake type-aware eviction rule",
            description = "How one object data type competes for space")
    public @interface Config {
        @AttributeDefinition(description = "Data type name (e.g. HIDDEN_STATE) or numeric code")
        String data_type();

        @AttributeDefinition(description = "Divides age; > 1 keeps the type longer")
        double reuse_scale() default 1;

        @AttributeDefinition(description = "Multiplies the age of soft-pinned objects")
        double soft_pin_weight() default 1;

        @AttributeDefinition(description = "Age (ms after the lease ends) below which objects of the type score 0")
        long eviction_grace_ms() default 0;

        @AttributeDefinition(description = "Share of capacity the type may hold before it is evicted first; negative: no budget")
        double budget_ratio() default -1;
    }

    /** Replaced by {@link #modified}; the policy reads it at each round. */
    private volatile TypeRule rule;

    @Activate
    public TypeRuleConfiguration(Config c) {
        this.rule = ruleOf(c);
    }

    /** Applies a changed configuration, or throws (DS logs it) and keeps the rule it had. */
    @Modified
    void modified(Config c) {
        rule = ruleOf(c);
    }

    private static TypeRule ruleOf(Config c) {
        ObjectDataType type;
        try {
            type = ObjectDataType.parse(c.data_type());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("data_type: " + e.getMessage(), e);
        }
        return new TypeRule(type, c.reuse_scale(), c.soft_pin_weight(), c.eviction_grace_ms(),
                c.budget_ratio() < 0 ? Double.NaN : c.budget_ratio());
    }

    public TypeRule rule() {
        return rule;
    }
}
