package dev.docket.internal.service;

import java.util.ArrayList;
import java.util.List;

/**
 * Services that start in the order given and stop in the reverse order, so that each one can rely
 * on those before it while it runs and while it stops. A start that fails stops what had started.
 * {@link #stop()} stops every member even when one of them throws, and then rethrows the first.
 */
public final class ServiceGroup implements Lifecycle {

    private final List<Lifecycle> members;
    private final List<Lifecycle> started = new ArrayList<>();

    public ServiceGroup(List<? extends Lifecycle> members) {
        this.members = List.copyOf(members);
    }

    public List<Lifecycle> members() {
        return members;
    }

    @Override
    public synchronized void start() {
        if (!started.isEmpty()) {
            return;
        }
        for (Lifecycle member : members) {
            try {
                member.start();
            } catch (RuntimeException e) {
                stop();
                throw e;
            }
            started.add(member);
        }
    }

    @Override
    public synchronized void stop() {
        RuntimeException first = null;
        for (Lifecycle member : started.reversed()) {
            try {
                member.stop();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        started.clear();
        if (first != null) {
            throw first;
        }
    }
}
