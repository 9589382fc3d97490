package dev.docket.internal.doctor;

import dev.docket.DoctorReport.Finding;
import dev.docket.DoctorReport.Severity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** The findings of one doctor run as the checks add them, and the formatting they share. */
final class Findings {

    private final List<Finding> all = new ArrayList<>();

    void ok(String check, String subject, String cause, String evidence) {
        all.add(new Finding(check, Severity.OK, subject, cause, evidence, ""));
    }

    void warning(String check, String subject, String cause, String evidence, String fix) {
        all.add(new Finding(check, Severity.WARNING, subject, cause, evidence, fix));
    }

    void problem(String check, String subject, String cause, String evidence, String fix) {
        all.add(new Finding(check, Severity.PROBLEM, subject, cause, evidence, fix));
    }

    void add(Severity severity, String check, String subject, String cause, String evidence, String fix) {
        all.add(new Finding(check, severity, subject, cause, evidence, severity == Severity.OK ? "" : fix));
    }

    /** The worst first; within a severity, in the order the checks ran. */
    List<Finding> sorted() {
        return all.stream().sorted(Comparator.comparing(Finding::severity).reversed()).toList();
    }

    /** "850 ms", "12.5 s", "4.2 min", "3.1 h", "2.0 d". */
    static String duration(double seconds) {
        if (seconds < 1) {
            return Math.round(seconds * 1000) + " ms";
        }
        if (seconds < 60) {
            return String.format(Locale.ROOT, "%.1f s", seconds);
        }
        if (seconds < 3600) {
            return String.format(Locale.ROOT, "%.1f min", seconds / 60);
        }
        if (seconds < 86400) {
            return String.format(Locale.ROOT, "%.1f h", seconds / 3600);
        }
        return String.format(Locale.ROOT, "%.1f d", seconds / 86400);
    }

    /** 12,345 */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** "1 job", "3 jobs" (with the count's thousands separated). */
    static String count(long n, String noun) {
        return count(n) + " " + noun + (n == 1 ? "" : "s");
    }

    /** A SQL string literal of {@code text}, for statements the fix shows (never run by Docket). */
    static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
