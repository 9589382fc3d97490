package dev.docket.test;

import dev.docket.Docket;
import dev.docket.JobInfo;
import dev.docket.JobQuery;
import dev.docket.JobState;
import dev.docket.JobSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.opentest4j.AssertionFailedError;

/**
 * Assertions on the jobs a test enqueued, in the manner of River's {@code rivertest} and
 * {@code Oban.Testing}: that a job {@link JobMatcher matching} a kind (and optionally payload, queue
 * and run time) was enqueued, that none was, or that exactly N were.
 *
 * <p>"Enqueued" means live: waiting ({@link JobState#SCHEDULED scheduled}, {@link JobState#READY ready},
 * or {@link JobState#WAITING behind its sequence's head}) or {@link JobState#RUNNING running}; a job that already completed,
 * was cancelled or is dead does not count. A failure lists the live jobs of the kind with what each
 * did not match (never their payloads).
 */
public final class DocketAssertions {

    /** The most live jobs of one kind these assertions read. */
    public static final int MAX_JOBS = 10_000;
    private static final int PAGE = 1000;
    /** Candidates listed in a failure message; the rest are counted. */
    private static final int LISTED = 10;

    private DocketAssertions() {
    }

    /**
     * Asserts that at least one live job matches, and returns the oldest such job.
     *
     * @throws AssertionFailedError if none does
     */
    public static JobInfo assertEnqueued(Docket docket, JobMatcher expected) {
        Candidates found = find(docket, expected);
        if (found.matching().isEmpty()) {
            throw new AssertionFailedError("expected a job " + expected + " to be enqueued, but none was"
                    + found.describeOthers());
        }
        return found.matching().getFirst();
    }

    /**
     * Asserts that exactly {@code times} live jobs match, and returns them, oldest first.
     *
     * @throws IllegalArgumentException if {@code times} is negative
     * @throws AssertionFailedError     if more or fewer match
     */
    public static List<JobInfo> assertEnqueued(Docket docket, int times, JobMatcher expected) {
        if (times < 0) {
            throw new IllegalArgumentException("times must not be negative, was " + times);
        }
        Candidates found = find(docket, expected);
        if (found.matching().size() != times) {
            throw new AssertionFailedError("expected exactly " + times + " job" + (times == 1 ? "" : "s") + " "
                    + expected + " to be enqueued, but found " + found.matching().size()
                    + found.describeMatching() + found.describeOthers(), times, found.matching().size());
        }
        return found.matching();
    }

    /**
     * Asserts that no live job matches.
     *
     * @throws AssertionFailedError if one does
     */
    public static void assertNotEnqueued(Docket docket, JobMatcher unexpected) {
        Candidates found = find(docket, unexpected);
        if (!found.matching().isEmpty()) {
            throw new AssertionFailedError("expected no job " + unexpected + " to be enqueued, but found "
                    + found.matching().size() + found.describeMatching());
        }
    }

    /** The live jobs of the matcher's kind, split into those that match and the others with their reasons. */
    private record Candidates(List<JobInfo> matching, List<String> others) {

        String describeMatching() {
            if (matching.isEmpty()) {
                return "";
            }
            StringBuilder text = new StringBuilder(":");
            matching.stream().limit(LISTED).forEach(job -> text.append("\n  ").append(describe(job)));
            more(text, matching.size());
            return text.toString();
        }

        String describeOthers() {
            if (others.isEmpty()) {
                return "; no other live job has that kind";
            }
            StringBuilder text = new StringBuilder("; live jobs of that kind that do not match:");
            others.stream().limit(LISTED).forEach(line -> text.append("\n  ").append(line));
            more(text, others.size());
            return text.toString();
        }

        private static void more(StringBuilder text, int size) {
            if (size > LISTED) {
                text.append("\n  ... and ").append(size - LISTED).append(" more");
            }
        }
    }

    private static Candidates find(Docket docket, JobMatcher matcher) {
        Objects.requireNonNull(docket, "docket");
        Objects.requireNonNull(matcher, "matcher");
        List<JobInfo> matching = new ArrayList<>();
        List<String> others = new ArrayList<>();
        for (JobInfo job : liveJobs(docket, matcher.kindName())) {
            List<String> reasons = matcher.mismatches(job);
            if (reasons.isEmpty()) {
                matching.add(job);
            } else {
                others.add(describe(job) + ": " + String.join(", ", reasons));
            }
        }
        return new Candidates(matching, others);
    }

    /** Live jobs of {@code kind}, oldest first. */
    private static List<JobInfo> liveJobs(Docket docket, String kind) {
        List<JobInfo> jobs = new ArrayList<>();
        for (JobState state : List.of(JobState.SCHEDULED, JobState.READY, JobState.RUNNING, JobState.WAITING)) {
            JobQuery query = JobQuery.all().withKind(kind).withState(state).withLimit(PAGE);
            List<JobSummary> page;
            do {
                page = docket.admin().jobs(query);
                for (JobSummary summary : page) {
                    docket.job(summary.id()).ifPresent(jobs::add);
                    if (jobs.size() > MAX_JOBS) {
                        throw new IllegalStateException("more than " + MAX_JOBS + " live jobs of kind '" + kind
                                + "': too many for an assertion to read");
                    }
                }
                if (!page.isEmpty()) {
                    query = query.withBefore(page.getLast().id());
                }
            } while (page.size() == PAGE);
        }
        jobs.sort((a, b) -> Long.compare(a.id(), b.id()));
        return jobs;
    }

    private static String describe(JobInfo job) {
        return "job " + job.id() + " (" + job.state().name().toLowerCase(Locale.ROOT) + ", queue '"
                + job.queue() + "', runs at " + job.runAt() + ")";
    }
}
