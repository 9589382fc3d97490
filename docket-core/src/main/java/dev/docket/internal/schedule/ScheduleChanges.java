package dev.docket.internal.schedule;

import dev.docket.ScheduleDefinition;
import dev.docket.ScheduleInfo;
import dev.docket.ScheduleRun;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.ScheduleQueries;
import dev.docket.internal.json.PayloadCodec;
import dev.docket.internal.json.PayloadJson;
import dev.docket.internal.rules.ScheduleRules;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes to schedules stored at run time ({@code DocketAdmin.createSchedule} and the rest, whose Javadoc
 * states the rules checked here). Every check runs before anything is written, and each change is one
 * transaction: a refused change writes nothing.
 *
 * @param encryptedKind whether this Docket encrypts a kind of that name: such a schedule is refused, as the
 *                      schedules table would hold its payload in clear
 */
public record ScheduleChanges(Database store, PayloadCodec codec, Predicate<String> encryptedKind) {

    private static final Logger log = LoggerFactory.getLogger(ScheduleChanges.class);
    /** The most runs one {@link #runs} call returns: as many as are kept. */
    public static final int MAX_RUNS = 20;

    public List<ScheduleInfo> list() {
        return Database.call("listing schedules", () -> store.schedules().list());
    }

    public Optional<ScheduleInfo> find(String name) {
        ScheduleRules.checkName(name);
        return Database.call("reading schedule " + name, () -> store.schedules().find(name));
    }

    public ScheduleInfo create(ScheduleDefinition d, String by) {
        String payload = checked(d, by);
        boolean inserted = Database.call("creating schedule " + d.name(), () -> store.schedules().insert(d, payload, by));
        if (!inserted) {
            ScheduleInfo existing = find(d.name()).orElse(null);
            throw new IllegalStateException("a schedule named '" + d.name() + "' already exists"
                    + (existing != null && existing.origin() == ScheduleInfo.Origin.CODE ? " (declared in code)" : "")
                    + "; choose another name or edit that one");
        }
        log.info("docket: schedule {} created by {}", d.name(), by);
        return find(d.name()).orElseThrow();
    }

    public Optional<ScheduleInfo> edit(ScheduleDefinition d, String by) {
        String payload = checked(d, by);
        ScheduleQueries.Change change = Database.call("editing schedule " + d.name(),
                () -> store.schedules().update(d, payload, by));
        return changed(d.name(), change, "edited", by);
    }

    public Optional<ScheduleInfo> setPaused(String name, boolean paused, String by) {
        ScheduleRules.checkName(name);
        ScheduleRules.checkChangedBy(by);
        ScheduleQueries.Change change = Database.call((paused ? "pausing" : "resuming") + " schedule " + name,
                () -> store.schedules().setPaused(name, paused, by));
        return changed(name, change, paused ? "paused" : "resumed", by);
    }

    public boolean delete(String name, String by) {
        ScheduleRules.checkName(name);
        ScheduleRules.checkChangedBy(by);
        ScheduleQueries.Change change = Database.call("deleting schedule " + name, () -> store.schedules().delete(name));
        changed(name, change, "deleted", by);
        return change == ScheduleQueries.Change.CHANGED;
    }

    public List<ScheduleRun> runs(String name, int limit) {
        ScheduleRules.checkName(name);
        if (limit < 1 || limit > MAX_RUNS) {
            throw new IllegalArgumentException("limit must be between 1 and " + MAX_RUNS + ", was " + limit);
        }
        return Database.call("reading the runs of schedule " + name, () -> store.schedules().runs(name, limit));
    }

    /** The payload as it will be stored, once every field and {@code by} passed. */
    private String checked(ScheduleDefinition d, String by) {
        if (d == null) {
            throw new IllegalArgumentException("schedule definition must not be null");
        }
        ScheduleRules.checkChangedBy(by);
        if (encryptedKind.test(d.kind())) {
            throw new IllegalArgumentException("kind '" + d.kind() + "' is encrypted at rest, and a stored schedule "
                    + "would keep its payload in clear in the schedules table; declare it in code (a PeriodicJob), "
                    + "whose slots are encrypted");
        }
        return codec.toJson(PayloadJson.parse(d.payloadJson(), "payload"));
    }

    private Optional<ScheduleInfo> changed(String name, ScheduleQueries.Change change, String what, String by) {
        return switch (change) {
            case MISSING -> Optional.empty();
            case CODE -> throw new IllegalStateException("schedule '" + name + "' is declared in code (a PeriodicJob "
                    + "in the application) and cannot be " + what + " at run time; change it in the code, or create "
                    + "a schedule of another name at run time");
            case CHANGED -> {
                log.info("docket: schedule {} {} by {}", name, what, by);
                yield what.equals("deleted") ? Optional.empty() : find(name);
            }
        };
    }
}
