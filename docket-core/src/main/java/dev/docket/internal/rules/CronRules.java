package dev.docket.internal.rules;

import com.cronutils.model.Cron;
import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;

/** The one reading of a cron expression, for {@code PeriodicJob}'s check and the maintenance leader's slots. */
public final class CronRules {

    private CronRules() {
    }

    /**
     * When a cron expression fires: five fields (as in crontab) or six with seconds first (as in Spring).
     *
     * @throws IllegalArgumentException saying what is wrong with the expression
     */
    public static ExecutionTime executionTime(String cron) {
        if (cron == null || cron.isBlank()) {
            throw new IllegalArgumentException("cron expression must not be empty");
        }
        int fields = cron.trim().split("\\s+").length;
        CronType type = switch (fields) {
            case 5 -> CronType.UNIX;
            case 6 -> CronType.SPRING53;
            default -> throw new IllegalArgumentException("cron expression must have 5 fields (minute hour day month "
                    + "weekday) or 6 (seconds first), had " + fields + ": '" + cron + "'");
        };
        try {
            Cron parsed = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(type)).parse(cron.trim());
            parsed.validate();
            return ExecutionTime.forCron(parsed);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid cron expression '" + cron + "': " + e.getMessage());
        }
    }
}
