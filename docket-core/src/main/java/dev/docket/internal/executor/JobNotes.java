package dev.docket.internal.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.docket.internal.db.Fence;
import dev.docket.internal.db.JobOutcomeQueries;
import dev.docket.internal.rules.TextRules;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One attempt's progress and log lines ({@code JobContext.progress}, {@code log}) on their way to the job's
 * row. The handler's calls only fill a buffer; a write of what is pending runs on a virtual thread of its
 * own at most every {@link #INTERVAL_NANOS} (the first at once), and {@link #finish()} writes the rest when
 * the attempt ends. Writes are fenced like outputs: an attempt that lost its lease writes nothing, and then
 * stops writing. An attempt that never calls either costs nothing: no buffer, no statement.
 */
final class JobNotes {

    private static final Logger log = LoggerFactory.getLogger(JobNotes.class);
    /** What one attempt keeps of its log, counting each line's message in UTF-8 plus {@link #LINE_OVERHEAD}. */
    static final int LOG_BYTES_PER_ATTEMPT = 32 * 1024;
    /** A line's time and framing, as the database's cap counts them too (migration V015, job_log_append). */
    static final int LINE_OVERHEAD = 64;
    static final int MAX_LINE_CHARS = 2000;
    static final int MAX_PROGRESS_MESSAGE_CHARS = 500;
    static final long INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private record Line(Instant at, String message, int bytes) {
    }

    private final Fence fence;
    private final String workerId;
    private final JobOutcomeQueries outcomes;
    private final ObjectMapper json;
    private final ScheduledExecutorService timer;

    /** Guards the buffer below; never held across a database call. */
    private final Object buffer = new Object();
    private final ArrayDeque<Line> lines = new ArrayDeque<>();
    private int lineBytes;
    private int droppedLines;
    private ObjectNode progress;
    private ScheduledFuture<?> scheduled;
    /** When the next scheduled write may start: set as a write is scheduled, so writes start an interval apart. */
    private long nextWriteAt = System.nanoTime();
    private boolean finished;

    /** One write at a time, in order. */
    private final ReentrantLock writing = new ReentrantLock();
    private volatile boolean lost;

    JobNotes(Fence fence, String workerId, JobOutcomeQueries outcomes, ObjectMapper json, ScheduledExecutorService timer) {
        this.fence = fence;
        this.workerId = workerId;
        this.outcomes = outcomes;
        this.json = json;
        this.timer = timer;
    }

    void log(String message) {
        if (message == null) {
            throw new IllegalArgumentException("a log line must not be null");
        }
        if (!TextRules.isText(message)) {
            throw new IllegalArgumentException("a log line must not hold NUL or an unpaired surrogate");
        }
        String text = cut(message);
        Line line = new Line(Instant.now(), text, text.getBytes(StandardCharsets.UTF_8).length + LINE_OVERHEAD);
        synchronized (buffer) {
            if (finished) {
                return;
            }
            lines.add(line);
            lineBytes += line.bytes();
            while (lineBytes > LOG_BYTES_PER_ATTEMPT) {
                lineBytes -= lines.removeFirst().bytes();
                droppedLines++;
            }
            scheduleWrite();
        }
    }

    void progress(double fraction, String message) {
        if (!(fraction >= 0 && fraction <= 1)) {
            throw new IllegalArgumentException("progress must be a fraction from 0 to 1, was " + fraction);
        }
        if (message != null && (message.length() > MAX_PROGRESS_MESSAGE_CHARS || !TextRules.isText(message))) {
            throw new IllegalArgumentException("a progress message must be at most " + MAX_PROGRESS_MESSAGE_CHARS
                    + " characters without NUL or unpaired surrogates");
        }
        ObjectNode p = json.createObjectNode().put("fraction", fraction);
        if (message != null) {
            p.put("message", message);
        }
        synchronized (buffer) {
            if (finished) {
                return;
            }
            progress = p;
            scheduleWrite();
        }
    }

    /** Writes what is still pending, on the calling thread; later calls change nothing. */
    void finish() {
        synchronized (buffer) {
            finished = true;
            if (scheduled != null) {
                scheduled.cancel(false);
            }
        }
        write();
    }

    /** A line cut at {@link #MAX_LINE_CHARS}, never inside a surrogate pair, saying how much was cut. */
    private static String cut(String message) {
        if (message.length() <= MAX_LINE_CHARS) {
            return message;
        }
        int end = Character.isHighSurrogate(message.charAt(MAX_LINE_CHARS - 1)) ? MAX_LINE_CHARS - 1 : MAX_LINE_CHARS;
        return message.substring(0, end) + " [" + (message.length() - end) + " more characters cut]";
    }

    /** Called holding the buffer: a write at the interval's end, unless one is on its way. */
    private void scheduleWrite() {
        if (scheduled != null && !scheduled.isDone() || lost) {
            return;
        }
        long now = System.nanoTime();
        long at = Math.max(now, nextWriteAt);
        nextWriteAt = at + INTERVAL_NANOS;
        long delay = at - now;
        try {
            scheduled = timer.schedule(() -> Thread.ofVirtual().name("docket-notes-" + fence.id()).start(this::write),
                    delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // The worker is closing: finish() writes what is pending when the attempt ends.
            scheduled = null;
        }
    }

    private void write() {
        writing.lock();
        try {
            String progressJson;
            String linesJson;
            int dropped;
            synchronized (buffer) {
                if (lost || progress == null && lines.isEmpty() && droppedLines == 0) {
                    return;
                }
                progressJson = progress == null ? null : progress.toString();
                linesJson = lines.isEmpty() && droppedLines == 0 ? null : linesJson();
                dropped = droppedLines;
                progress = null;
                lines.clear();
                lineBytes = 0;
                droppedLines = 0;
            }
            if (!outcomes.writeNotes(fence, workerId, progressJson, linesJson, dropped, LOG_BYTES_PER_ATTEMPT)) {
                lost = true;
            }
        } catch (SQLException | RuntimeException e) {
            // Notes are a view of the attempt, not its outcome: what could not be written is given up. The
            // message is left out: the database's may quote the lines, which are the handler's text.
            log.warn("docket: job {} attempt {}: writing its progress and log lines failed ({}{})", fence.id(),
                    fence.attempt(), e.getClass().getSimpleName(),
                    e instanceof SQLException sql && sql.getSQLState() != null ? ", SQLSTATE " + sql.getSQLState() : "");
        } finally {
            writing.unlock();
        }
    }

    /** Called holding the buffer. */
    private String linesJson() {
        ArrayNode array = json.createArrayNode();
        for (Line line : lines) {
            array.addObject().put("at", line.at().toString()).put("message", line.message());
        }
        return array.toString();
    }
}
