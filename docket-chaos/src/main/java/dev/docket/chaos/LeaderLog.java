package dev.docket.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * When the maintenance leadership changed hands, read from the workers' logs (each new leader logs
 * "is now the maintainer leader"). A job whose worker died is rescued by the leader; when the leader
 * itself dies (a poison job halts its JVM, a kill, a stall, a database outage it could not renew
 * through) the rescue first waits for the next leader, and the check allows for that wait.
 */
final class LeaderLog {

    private static final Pattern ELECTED = Pattern.compile(
            "^(\\S+) \\[[^]]*] INFO \\S+ - docket: \\S+ is now the maintainer leader \\(term \\d+\\)");

    private final List<Instant> elections;

    private LeaderLog(List<Instant> elections) {
        this.elections = elections;
    }

    static LeaderLog read(Path runDir) throws IOException {
        List<Instant> elections = new ArrayList<>();
        try (Stream<Path> logs = Files.list(runDir)) {
            for (Path log : logs.filter(p -> p.getFileName().toString().matches("w\\d+\\.log")).toList()) {
                for (String line : Files.readAllLines(log)) {
                    Matcher m = ELECTED.matcher(line);
                    if (m.find()) {
                        elections.add(OffsetDateTime.parse(m.group(1)).toInstant());
                    }
                }
            }
        }
        return new LeaderLog(elections);
    }

    /** How many leaders, other than the first, were elected after {@code from} and no later than {@code to}. */
    long changesBetween(Instant from, Instant to) {
        Instant first = elections.stream().min(Instant::compareTo).orElse(Instant.MAX);
        return elections.stream().filter(t -> t.isAfter(from) && !t.isAfter(to) && !t.equals(first)).count();
    }
}
