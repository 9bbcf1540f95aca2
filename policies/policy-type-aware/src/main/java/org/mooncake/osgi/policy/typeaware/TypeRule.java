package org.mooncake.osgi.policy.typeaware;

import org.mooncake.osgi.store.api.ObjectDataType;

/**
 * How one data type competes for space. The defaults reproduce the plain lease order.
 *
 * @param reuseScale    divides a candidate's age: larger keeps the type longer (> 0)
 * @param softPinWeight multiplies the age of soft-pinned candidates (> 0)
 * @param graceMs       age below which the type scores 0 (>= 0)
 * @param budgetRatio   share of capacity the type may hold before it gives up objects first;
 *                      NaN for no budget, else in (0, 1]
 */
public record TypeRule(ObjectDataType type, double reuseScale, double softPinWeight, long graceMs,
        double budgetRatio) {

    public TypeRule {
        if (type == null) {
            throw new IllegalArgumentException("data type is required");
        }
        if (!(reuseScale > 0) || Double.isInfinite(reuseScale)) {
            throw new IllegalArgumentException("reuse_scale must be a finite number > 0, was " + reuseScale);
        }
        if (!(softPinWeight > 0) || Double.isInfinite(softPinWeight)) {
            throw new IllegalArgumentException("soft_pin_weight must be a finite number > 0, was " + softPinWeight);
        }
        if (graceMs < 0) {
            throw new IllegalArgumentException("eviction_grace_ms must be >= 0, was " + graceMs);
        }
        if (!Double.isNaN(budgetRatio) && !(budgetRatio > 0 && budgetRatio <= 1)) {
            throw new IllegalArgumentException("budget_ratio must be in (0, 1] or unset, was " + budgetRatio);
        }
    }

    public static TypeRule defaults(ObjectDataType type) {
        return new TypeRule(type, 1, 1, 0, Double.NaN);
    }

    public boolean hasBudget() {
        return !Double.isNaN(budgetRatio);
    }

    /** The seed's adjusted age: larger goes first. */
    public double score(long nowMs, long leaseExpiresAtMs, boolean softPinned) {
        double age = Math.max(0, nowMs - leaseExpiresAtMs - graceMs);
        return age * (softPinned ? softPinWeight : 1) / reuseScale;
    }
}
