package dev.docket.internal.rules;

import com.cronutils.model.time.ExecutionTime;
import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.regex.Pattern;

/** The rules of a stored schedule's fields, for {@code ScheduleDefinition} and the tools that parse them from text. */
public final class ScheduleRules {

    /** The longest cron expression, in characters. */
    public static final int MAX_CRON_LENGTH = 200;
    /** The longest time zone id, in characters. */
    public static final int MAX_ZONE_LENGTH = 64;
    /** The longest name of whoever changes a schedule, in characters. */
    public static final int MAX_CHANGED_BY = 200;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]{1,128}");

    private ScheduleRules() {
    }

    public static void checkName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("schedule name must be 1 to 128 characters of A-Z a-z 0-9 _ . : -, was "
                    + TextRules.describe(name));
        }
    }

    /** The expression read as the leader reads it; refused if it is not one or never fires. */
    public static ExecutionTime checkCron(String cron) {
        if (cron != null && (cron.length() > MAX_CRON_LENGTH || !TextRules.isName(cron))) {
            throw new IllegalArgumentException("cron expression must be at most " + MAX_CRON_LENGTH
                    + " printable characters, was " + TextRules.describe(cron));
        }
        ExecutionTime times = CronRules.executionTime(cron);
        if (times.nextExecution(ZonedDateTime.now(ZoneOffset.UTC)).isEmpty()) {
            throw new IllegalArgumentException("cron expression '" + cron.trim() + "' never fires");
        }
        return times;
    }

    public static void checkKind(String kind) {
        JobOptionRules.checkKind(kind);
    }

    public static void checkQueue(String queue) {
        JobOptionRules.checkQueue(queue);
    }

    /** A time zone id such as {@code Europe/Berlin}, {@code UTC} or {@code +02:00}; a clear error for any other text. */
    public static ZoneId zone(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("time zone must not be empty (e.g. UTC or Europe/Berlin)");
        }
        if (text.length() > MAX_ZONE_LENGTH || !TextRules.isName(text)) {
            throw new IllegalArgumentException("unknown time zone " + TextRules.describe(text));
        }
        try {
            return ZoneId.of(text);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("unknown time zone '" + text + "' (use an IANA name such as "
                    + "Europe/Berlin, UTC, or an offset such as +02:00)");
        }
    }

    /** Who changes a schedule: 1 to {@value #MAX_CHANGED_BY} printable characters. */
    public static void checkChangedBy(String by) {
        if (by == null || by.isBlank() || by.length() > MAX_CHANGED_BY || !TextRules.isName(by)) {
            throw new IllegalArgumentException("changedBy must be 1 to " + MAX_CHANGED_BY + " printable characters, was "
                    + TextRules.describe(by));
        }
    }
}
