package dev.docket;

import java.time.Instant;
import java.util.List;

/**
 * The log lines one attempt of a job kept ({@link JobContext#log}, {@link JobInfo#logs()}): the latest
 * within the attempt's cap, oldest first.
 *
 * @param attempt      the attempt's number; a run that snoozed or waited for a signal gave its number back, so
 *                     the run after it continues the same attempt's log
 * @param droppedLines how many older lines of this attempt were dropped to keep it within its cap
 * @param lines        the lines kept, oldest first
 */
public record JobLog(int attempt, long droppedLines, List<Line> lines) {

    public JobLog {
        lines = List.copyOf(lines);
    }

    /**
     * One line.
     *
     * @param at      when the handler logged it, by the worker's clock
     * @param message the line as logged
     */
    public record Line(Instant at, String message) {
    }
}
