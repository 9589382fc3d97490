package dev.docket;

import java.time.Duration;
import java.util.Objects;

/**
 * Thresholds of {@link DocketAdmin#doctor(DoctorOptions)}; {@link #defaults()} documents each.
 *
 * @param longTransaction  a transaction (or prepared transaction) holding the xmin horizon longer than this is
 *                         a warning, ten times longer (or idle in transaction longer than this) a problem;
 *                         default 5 minutes, zero or more
 * @param xidAge           a replication slot or standby holding the horizon more than this many transactions
 *                         back is a warning; default 10,000,000, at least 1
 * @param historyRetention the history retention the maintenance leader applies (partitions older than it plus a
 *                         day are overdue); default: the {@link Docket}'s own
 */
public record DoctorOptions(Duration longTransaction, long xidAge, Duration historyRetention) {

    public DoctorOptions {
        Objects.requireNonNull(longTransaction, "longTransaction");
        if (longTransaction.isNegative()) {
            throw new IllegalArgumentException("longTransaction must be zero or more, was " + longTransaction);
        }
        if (xidAge < 1) {
            throw new IllegalArgumentException("xidAge must be at least 1, was " + xidAge);
        }
        if (historyRetention != null && historyRetention.isNegative()) {
            throw new IllegalArgumentException("historyRetention must be zero or more, was " + historyRetention);
        }
    }

    /** 5 minutes, 10,000,000 transactions, the Docket's history retention. */
    public static DoctorOptions defaults() {
        return new DoctorOptions(Duration.ofMinutes(5), 10_000_000, null);
    }

    public DoctorOptions withLongTransaction(Duration longTransaction) {
        return new DoctorOptions(longTransaction, xidAge, historyRetention);
    }

    public DoctorOptions withXidAge(long xidAge) {
        return new DoctorOptions(longTransaction, xidAge, historyRetention);
    }

    public DoctorOptions withHistoryRetention(Duration historyRetention) {
        return new DoctorOptions(longTransaction, xidAge, Objects.requireNonNull(historyRetention, "historyRetention"));
    }
}
