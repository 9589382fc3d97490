package dev.docket.internal.observe;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;

/** The slots of every worker in this process that serves one queue, summed for its gauges. */
final class ServedQueue {

    /** One worker's slots on the queue; compared by identity, so two alike workers stay two. */
    static final class Slots {
        private final int concurrency;
        private final IntSupplier busy;

        private Slots(int concurrency, IntSupplier busy) {
            this.concurrency = concurrency;
            this.busy = busy;
        }
    }

    private final List<Slots> slots = new CopyOnWriteArrayList<>();

    Slots add(int concurrency, IntSupplier busy) {
        Slots s = new Slots(concurrency, busy);
        slots.add(s);
        return s;
    }

    void remove(Slots s) {
        slots.remove(s);
    }

    double concurrency() {
        return slots.stream().mapToInt(s -> s.concurrency).sum();
    }

    double busy() {
        return slots.stream().mapToInt(s -> s.busy.getAsInt()).sum();
    }
}
