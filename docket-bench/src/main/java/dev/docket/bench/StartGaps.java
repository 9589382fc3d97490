package dev.docket.bench;

import java.util.Arrays;
import java.util.Locale;

/**
 * The gaps between consecutive handler starts of one drain, as a liveness check: every job of a drain is
 * ready from its first start to its last, so a long gap is a stretch where jobs waited and no handler
 * started. The longest gap is a stall when it exceeds {@link #threshold()}: five median gaps, but never
 * less than {@link #FLOOR_NANOS} (a drain of a few thousand jobs has a median gap near zero, and a
 * scheduler's or garbage collector's pause of some milliseconds is noise, not a stall).
 *
 * @param starts       how many starts there were
 * @param longestNanos the longest gap between consecutive starts; 0 with fewer than two starts
 * @param medianNanos  the median gap; 0 with fewer than two starts
 * @param atNanos      when the longest gap began, counted from the first start
 */
record StartGaps(int starts, long longestNanos, long medianNanos, long atNanos) {

    static final long FLOOR_NANOS = 100_000_000;
    static final int MEDIANS = 5;

    /** The gaps of these start times ({@link System#nanoTime()}), in any order, as many threads recorded them. */
    static StartGaps of(long[] startNanos) {
        if (startNanos.length < 2) {
            return new StartGaps(startNanos.length, 0, 0, 0);
        }
        long[] sorted = startNanos.clone();
        Arrays.sort(sorted);
        long[] gaps = new long[sorted.length - 1];
        int longest = 0;
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = sorted[i + 1] - sorted[i];
            if (gaps[i] > gaps[longest]) {
                longest = i;
            }
        }
        long longestGap = gaps[longest];
        Arrays.sort(gaps);
        int mid = gaps.length / 2;
        long median = gaps.length % 2 == 1 ? gaps[mid] : (gaps[mid - 1] + gaps[mid]) / 2;
        return new StartGaps(startNanos.length, longestGap, median, sorted[longest] - sorted[0]);
    }

    /** The longest gap that is not a stall: {@value #MEDIANS} median gaps, at least {@link #FLOOR_NANOS}. */
    long threshold() {
        return Math.max(FLOOR_NANOS, MEDIANS * medianNanos);
    }

    boolean stalled() {
        return longestNanos > threshold();
    }

    /** What a flagged drain's row says, e.g. "stall: no start for 312 ms from 1,204 ms on (threshold 100 ms)". */
    String describe() {
        return String.format(Locale.ROOT, "stall: no start for %,.0f ms from %,.0f ms on (threshold %,.0f ms)",
                longestNanos / 1e6, atNanos / 1e6, threshold() / 1e6);
    }
}
