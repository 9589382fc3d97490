package dev.docket.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The README's table "Options and defaults", read as option → default, and the form its defaults are
 * written in. The defaults are written in several places (the library's builders, the Spring Boot
 * starter's properties, the CLI's options, the README); each module's test compares its own with this
 * table, so that all of them agree with each other through it.
 */
public final class ReadmeDefaults {

    private static final String TABLE_HEADING = "### Options and defaults";

    private final Map<String, String> defaults;

    private ReadmeDefaults(Map<String, String> defaults) {
        this.defaults = defaults;
    }

    /** The table of the README at the root of the repository (tests run in a module's directory). */
    public static ReadmeDefaults read() {
        Path readme = Path.of("..", "README.md");
        try {
            return parse(Files.readAllLines(readme));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + readme.toAbsolutePath(), e);
        }
    }

    static ReadmeDefaults parse(List<String> lines) {
        int at = lines.indexOf(TABLE_HEADING);
        if (at < 0) {
            throw new IllegalStateException("the README has no \"" + TABLE_HEADING + "\"");
        }
        Map<String, String> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : lines.subList(at + 1, lines.size())) {
            if (!line.startsWith("|")) {
                if (inTable) {
                    break;
                }
                continue;
            }
            inTable = true;
            String[] cells = line.split("\\|", -1);
            String option = cells[1].strip();
            if (option.equals("option") || option.startsWith("---")) {
                continue;
            }
            rows.put(option, cells[2].strip());
        }
        return new ReadmeDefaults(rows);
    }

    /** The default the README gives for the row whose option cell is exactly {@code option} (backticks and all). */
    public String of(String option) {
        String value = defaults.get(option);
        if (value == null) {
            throw new IllegalArgumentException("the README's table has no row " + option + "; rows: " + defaults.keySet());
        }
        return value;
    }

    /** A duration as the README writes it: {@code 5 ms}, {@code 30 s}, {@code 1 h}, {@code 7 days}. */
    public static String duration(Duration d) {
        if (d.toDays() > 0 && d.equals(Duration.ofDays(d.toDays()))) {
            return d.toDays() == 1 ? "1 day" : d.toDays() + " days";
        }
        if (d.toHours() > 0 && d.equals(Duration.ofHours(d.toHours()))) {
            return d.toHours() + " h";
        }
        if (d.toMinutes() > 0 && d.equals(Duration.ofMinutes(d.toMinutes()))) {
            return d.toMinutes() + " min";
        }
        if (d.toSeconds() > 0 && d.equals(Duration.ofSeconds(d.toSeconds()))) {
            return d.toSeconds() + " s";
        }
        return d.toMillis() + " ms";
    }

    /** A count as the README writes it: {@code 100}, {@code 1,000}. */
    public static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /** A byte size as the README writes it: {@code 256 KiB}, {@code 1 MiB}. */
    public static String bytes(long n) {
        if (n % (1024 * 1024) == 0) {
            return n / (1024 * 1024) + " MiB";
        }
        if (n % 1024 == 0) {
            return n / 1024 + " KiB";
        }
        return n + " bytes";
    }

    /** A switch as the README writes it: {@code on} or {@code off}. */
    public static String onOff(boolean on) {
        return on ? "on" : "off";
    }
}
