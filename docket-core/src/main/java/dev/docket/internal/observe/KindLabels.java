package dev.docket.internal.observe;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code kind} label of Docket's metrics, bounded: kinds are chosen by callers, and every kind
 * multiplies the series of each meter. The first {@code limit} kinds this process sees keep their
 * name; any later kind is reported as {@link #OTHER}, so a caller that invents kinds (a kind per
 * customer, say) cannot grow the metrics without bound.
 */
public final class KindLabels {

    /** The label of every kind beyond the limit. */
    public static final String OTHER = "other";

    private final int limit;
    private final Set<String> named = ConcurrentHashMap.newKeySet();

    public KindLabels(int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("the kind label limit must be >= 1, was " + limit);
        }
        this.limit = limit;
    }

    /** {@code kind} itself while it is among the first {@code limit} kinds seen, else {@link #OTHER}. */
    public String label(String kind) {
        if (named.contains(kind)) {
            return kind;
        }
        synchronized (named) {
            if (named.size() < limit) {
                named.add(kind);
                return kind;
            }
        }
        return OTHER;
    }
}
