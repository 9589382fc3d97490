package dev.docket.internal.maintenance;

import dev.docket.JobSummary;
import dev.docket.internal.db.Database;
import dev.docket.internal.db.DeadJobReplayQueries;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the dead-letter replays started with {@code DocketAdmin.startReplay} (leader only, as
 * part of maintenance): each round, every running replay puts back the dead jobs it has earned at its
 * rate by the database clock, newest first, and records its progress in the same table, so that a new
 * leader goes on where the last one stopped. Replays finished more than {@link #RETENTION} ago are
 * deleted, at most once per {@link #PRUNE_INTERVAL}.
 *
 * <p>Putting jobs back and recording the progress are two transactions: a leader that dies between
 * them leaves the cursor behind the jobs it put back, which are no longer dead and so are not found
 * again (unless they died again meanwhile, and then they are replayed again, as they would be by hand).
 */
public final class DeadJobReplayer {

    private static final Logger log = LoggerFactory.getLogger(DeadJobReplayer.class);
    /** How long a finished replay stays visible. */
    public static final Duration RETENTION = Duration.ofDays(7);
    static final Duration PRUNE_INTERVAL = Duration.ofMinutes(10);
    /** The most jobs one replay takes in one round (the largest listing page). */
    private static final int MAX_TURN = 1000;

    private final Database store;
    private long nextPrune = System.nanoTime();

    public DeadJobReplayer(Database store) {
        this.store = store;
    }

    /** Gives every running replay its turn, and prunes finished ones when due; returns how many jobs it replayed. */
    public int runOnce() throws SQLException {
        int replayed = 0;
        for (DeadJobReplayQueries.Turn turn : store.deadJobReplays().turn()) {
            replayed += take(turn);
        }
        if (System.nanoTime() - nextPrune >= 0) {
            store.deadJobReplays().deleteFinished(RETENTION);
            nextPrune = System.nanoTime() + PRUNE_INTERVAL.toNanos();
        }
        return replayed;
    }

    private int take(DeadJobReplayQueries.Turn turn) throws SQLException {
        int wanted = (int) Math.min(Math.floor(turn.credit()), Math.min(turn.remaining(), MAX_TURN));
        if (wanted <= 0) {
            return 0;
        }
        List<JobSummary> page = store.deadJobs().list(turn.filter(), wanted);
        List<Long> replayed = page.isEmpty() ? List.of() : store.deadJobs().replay(page.stream().map(JobSummary::id).toList());
        boolean finished = page.size() < wanted || page.size() == turn.remaining();
        store.deadJobReplays().advance(turn.id(), page.size(), replayed.size(),
                page.isEmpty() ? turn.nextBefore() : Long.valueOf(page.getLast().id()), finished);
        if (finished) {
            log.info("docket: dead-letter replay {} finished", turn.id());
        }
        return replayed.size();
    }
}
