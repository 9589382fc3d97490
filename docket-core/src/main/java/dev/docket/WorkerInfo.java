package dev.docket;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A worker as it registered itself in the {@code workers} table ({@link DocketAdmin#workers()}). Every
 * worker writes its row at start and again every heartbeat interval, and deletes it when it stops
 * gracefully; a row whose heartbeats stopped stays an hour (so that doctor can report it), then is pruned.
 *
 * @param id                 the worker's id, as in a running job's {@code locked_by}
 * @param host               the host name the worker runs on
 * @param pid                its process id on that host
 * @param queues             the queues it serves, each with its concurrency
 * @param kinds              the kinds it has handlers for, each with the payload version its handler reads
 * @param version            the Docket version it runs ({@code development} for a build without one)
 * @param poolSize           its pool's maximum size, or null when the pool does not tell
 * @param connectionsNeeded  the pool connections its services may hold at once (queues + 6, see {@link Worker})
 * @param listen             whether it is configured to LISTEN for notifications
 * @param listening          whether its listener connection was up at its last heartbeat
 * @param stalled            its services whose round waited beyond the stall timeout at its last heartbeat
 * @param heartbeatInterval  how often it writes its row
 * @param startedAt          when it registered, by the database clock
 * @param heartbeatAt        its last heartbeat, by the database clock
 * @param live               whether its last heartbeat is younger than three heartbeat intervals
 * @param running            jobs locked by its id now (read from the jobs table: it counts jobs claimed ahead and
 *                           not started yet, and the jobs a worker whose heartbeats stopped still holds)
 * @param handlersRunning    handlers it was running at its last heartbeat (at most {@link #concurrency()})
 * @param finishedLastMinute attempts it finished (completed, retried or dead) in the minute before its last
 *                           heartbeat: 0 for a live worker that has nothing to do, or is stuck
 * @param failedLastMinute   of those, the attempts that failed
 * @param heartbeatAge       how long before this read its last heartbeat was, by the database clock
 */
public record WorkerInfo(String id, String host, long pid, Map<String, Integer> queues, Map<String, Integer> kinds,
                         String version, Integer poolSize, int connectionsNeeded, boolean listen, boolean listening,
                         List<String> stalled, Duration heartbeatInterval, Instant startedAt, Instant heartbeatAt,
                         boolean live, long running, int handlersRunning, long finishedLastMinute,
                         long failedLastMinute, Duration heartbeatAge) {

    public WorkerInfo {
        queues = Map.copyOf(queues);
        kinds = Map.copyOf(kinds);
        stalled = List.copyOf(stalled);
    }

    /** Whether this worker, while live, runs jobs of {@code kind} on {@code queue}. */
    public boolean serves(String queue, String kind) {
        return live && queues.containsKey(queue) && kinds.containsKey(kind);
    }

    /** The sum of its queues' concurrency. */
    public int concurrency() {
        return queues.values().stream().mapToInt(Integer::intValue).sum();
    }
}
