package org.mooncake.osgi.epd.demo;

import java.util.Map;

/**
 * One counter's expected change on one process during one request: {@code == value} or
 * {@code >= value}, with why it must hold. Labels select the series (all others summed).
 */
public record Expectation(Role role, String metric, Map<String, String> labels, Op op, double value, String why) {

    public enum Op {
        EQ("=="), AT_LEAST(">=");

        private final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }
    }

    public Expectation {
        labels = Map.copyOf(labels);
    }

    /** The outcome against the deltas of each process. */
    public record Outcome(Expectation expected, double actual, boolean ok) {
        /** {@code prefill mooncake_epd_hidden_state_lookups_total{outcome="hit"} expected == 1, actual 0 (why)} */
        public String message() {
            Expectation e = expected;
            return e.role.id() + " " + e.series() + " expected " + e.op.symbol() + " " + number(e.value) + ", actual "
                    + number(actual) + " (" + e.why + ")";
        }
    }

    public Outcome check(Map<Role, Metrics> deltas) {
        double actual = deltas.getOrDefault(role, Metrics.empty()).sum(metric, labels);
        boolean ok = switch (op) {
            case EQ -> actual == value;
            case AT_LEAST -> actual >= value;
        };
        return new Outcome(this, actual, ok);
    }

    /** {@code name{k="v",...}} */
    public String series() {
        return new Metrics.Series(metric, labels).toString();
    }

    static String number(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(java.util.Locale.ROOT, "%.3f", v);
    }
}
