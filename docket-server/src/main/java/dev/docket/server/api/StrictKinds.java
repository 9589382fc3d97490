package dev.docket.server.api;

import dev.docket.DocketAdmin;
import dev.docket.NewJob;
import dev.docket.WorkerInfo;
import io.javalin.http.Context;
import java.util.List;
import java.util.Locale;

/**
 * {@code strictKinds}: an enqueue that asks for it (the query parameter {@code ?strictKinds=true}, or
 * {@code "strictKinds": true} in the body) is refused with 422 {@code unserved_kind} unless a live
 * worker serves each job's queue and kind, so that a typo in a kind fails at once instead of being
 * retried for hours with "no handler". Without it nothing is read: an enqueue costs what it always did.
 */
final class StrictKinds {

    static final String CODE = "unserved_kind";

    private StrictKinds() {
    }

    /** Whether the request asks for strict kinds; the query parameter and the body flag must not disagree. */
    static boolean requested(Context ctx, Boolean bodyFlag) {
        String param = ctx.queryParam("strictKinds");
        Boolean query = null;
        if (param != null) {
            query = switch (param.toLowerCase(Locale.ROOT)) {
                case "true", "1" -> true;
                case "false", "0" -> false;
                default -> throw ApiException.badRequest("strictKinds must be true or false, was '"
                        + JobRequests.clip(param) + "'");
            };
        }
        if (query != null && bodyFlag != null && !query.equals(bodyFlag)) {
            throw ApiException.badRequest("strictKinds is " + query + " in the query and " + bodyFlag + " in the body");
        }
        return Boolean.TRUE.equals(query != null ? query : bodyFlag);
    }

    /** Refuses the first job whose queue and kind no live worker serves. */
    static void check(DocketAdmin admin, List<NewJob> jobs) {
        List<WorkerInfo> workers = admin.workers();
        for (int i = 0; i < jobs.size(); i++) {
            NewJob job = jobs.get(i);
            String queue = job.options().queue();
            if (workers.stream().noneMatch(w -> w.serves(queue, job.kind()))) {
                throw new ApiException(422, CODE, (jobs.size() > 1 ? "jobs[" + i + "]: " : "") + "no live worker serves "
                        + "kind '" + JobRequests.clip(job.kind()) + "' on queue '" + queue + "' (strictKinds)");
            }
        }
    }
}
