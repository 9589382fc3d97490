package dev.docket.test;

import static dev.docket.test.DocketAssertions.assertEnqueued;
import static dev.docket.test.DocketAssertions.assertNotEnqueued;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.docket.Docket;
import dev.docket.JobInfo;
import dev.docket.JobKind;
import dev.docket.JobOptions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.opentest4j.AssertionFailedError;

/**
 * The assertions pass on what was enqueued, and fail with messages that say what was expected and
 * what was there. The class's tests share its schema, so each uses kinds of its own.
 */
@ExtendWith(DocketExtension.class)
class DocketAssertionsTest {

    record Invoice(String customer, int cents) {
    }

    private static JobKind<Invoice> invoice(String name) {
        return JobKind.of(name, Invoice.class).build();
    }

    @Test
    void assertEnqueuedFindsAJobByKindPayloadQueueAndTime(Docket docket) {
        JobKind<Invoice> kind = invoice("invoice_found");
        Instant before = Instant.now();
        long id = docket.enqueue(kind, new Invoice("ada", 1200),
                JobOptions.builder().queue("billing").delay(Duration.ofHours(1)).build()).id();
        JobInfo found = assertEnqueued(docket, JobMatcher.kind(kind, i -> i.customer().equals("ada"))
                .withQueue("billing")
                .withRunAtBetween(before.plus(Duration.ofMinutes(59)), before.plus(Duration.ofMinutes(61))));
        assertThat(found.id()).isEqualTo(id);
        assertNotEnqueued(docket, JobMatcher.kind("refund"));
        assertNotEnqueued(docket, JobMatcher.kind(kind, i -> i.cents() > 5000));
        assertThat(assertEnqueued(docket, 1, JobMatcher.kind(kind))).extracting(JobInfo::id).containsExactly(id);
    }

    @Test
    void aFailedAssertEnqueuedSaysWhatWasExpectedAndWhyEachJobOfTheKindDidNotMatch(Docket docket) {
        JobKind<Invoice> kind = invoice("invoice_mismatch");
        long other = docket.enqueue(kind, new Invoice("bob", 5)).id();
        assertThatThrownBy(() -> assertEnqueued(docket, JobMatcher.kind(kind, i -> i.customer().equals("ada"))
                .withQueue("billing")))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageStartingWith("expected a job of kind 'invoice_mismatch' with a payload of type Invoice "
                        + "matching the predicate in queue 'billing' to be enqueued, but none was; live jobs of that kind that "
                        + "do not match:\n  job " + other + " (ready, queue 'default', runs at ")
                .hasMessageEndingWith("): its payload does not match the predicate, its queue is 'default'")
                .hasMessageNotContaining("bob");
    }

    @Test
    void aFailedAssertEnqueuedSaysWhenNoJobHasTheKind(Docket docket) {
        assertThatThrownBy(() -> assertEnqueued(docket, JobMatcher.kind("invoice_none")))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessage("expected a job of kind 'invoice_none' to be enqueued, but none was; no other live job has "
                        + "that kind");
    }

    @Test
    void exactlyNAndNoneFailListingTheJobsFound(Docket docket) {
        JobKind<Invoice> kind = invoice("invoice_many");
        long first = docket.enqueue(kind, new Invoice("ada", 1)).id();
        long second = docket.enqueue(kind, new Invoice("ada", 2)).id();
        assertThatThrownBy(() -> assertEnqueued(docket, 1, JobMatcher.kind(kind)))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageStartingWith("expected exactly 1 job of kind 'invoice_many' to be enqueued, but found 2:\n"
                        + "  job " + first + " (ready, queue 'default', runs at ")
                .hasMessageContaining("\n  job " + second + " (ready");
        assertThatThrownBy(() -> assertNotEnqueued(docket, JobMatcher.kind(kind).withQueue("default")))
                .isInstanceOf(AssertionFailedError.class)
                .hasMessageStartingWith("expected no job of kind 'invoice_many' in queue 'default' to be enqueued, but "
                        + "found 2:\n  job " + first);
    }

    @Test
    void finishedJobsDoNotCount(Docket docket) {
        JobKind<Invoice> kind = invoice("invoice_finished");
        long cancelled = docket.enqueue(kind, new Invoice("ada", 1)).id();
        docket.enqueue(kind, new Invoice("ada", 2));
        docket.cancel(cancelled);
        assertThat(assertEnqueued(docket, 1, JobMatcher.kind(kind))).extracting(JobInfo::id).doesNotContain(cancelled);
    }

    @Test
    void aPayloadOfAnotherShapeDoesNotMatch(Docket docket) {
        docket.enqueue("shape", "just a string");
        assertThatThrownBy(() -> assertEnqueued(docket, JobMatcher.kind("shape").withPayload(Invoice.class, i -> true)))
                .hasMessageEndingWith("its payload does not map to Invoice");
    }

    @Test
    void matchersAndCountsRefuseBadInput() {
        assertThatThrownBy(() -> JobMatcher.kind(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kind must not be blank, was ' '");
        assertThatThrownBy(() -> JobMatcher.kind((String) null)).isInstanceOf(IllegalArgumentException.class);
        Instant now = Instant.now();
        assertThatThrownBy(() -> JobMatcher.kind("k").withRunAtBetween(now, now.minusSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not end");
        assertThatThrownBy(() -> JobMatcher.kind("k").withQueue(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> assertEnqueued(null, -1, JobMatcher.kind("k")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("times must not be negative, was -1");
    }
}
