package dev.docket;

import java.time.Instant;

/**
 * A replay of dead jobs at a rate, started with {@link DocketAdmin#startDeadJobReplay}: the maintenance
 * leader puts the matching dead jobs back to ready, newest first, at no more than
 * {@code ratePerSecond}. Its progress is kept in the database, so it survives a restart of the node
 * that started it and a change of leader. Kept for 7 days after it finishes.
 *
 * @param id            the replay's id
 * @param kind          only dead jobs of this kind, or {@code null} for any
 * @param errorContains only dead jobs whose errors contain this text, or {@code null} for any
 * @param signature     only dead jobs of this error signature ({@link DeadJobGroup#signature()}), or {@code null} for any
 * @param before        only dead jobs with an id below this one, or {@code null} for any
 * @param ratePerSecond the most jobs it replays per second
 * @param max           the most jobs it looks at
 * @param matched       how many dead jobs matched when it started (at most {@code max})
 * @param scanned       how many it has looked at so far
 * @param replayed      how many it has put back; a dead job whose unique key a live job holds now stays dead
 * @param state         whether it is still going
 * @param createdAt     when it started
 * @param finishedAt    when it finished, or {@code null} while it runs
 */
public record DeadJobReplay(long id, String kind, String errorContains, String signature, Long before, double ratePerSecond, int max,
                            int matched, int scanned, int replayed, State state, Instant createdAt,
                            Instant finishedAt) {

    /** Where a replay is. */
    public enum State {
        /** It still has matching dead jobs to look at. */
        RUNNING,
        /** It looked at every job that matched (or at {@code max} of them). */
        DONE
    }
}
