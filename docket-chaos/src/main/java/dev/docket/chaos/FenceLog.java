package dev.docket.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The transactional attempts fenced out at their commit, counted from the worker side: each logs
 * "fenced out: the lease was lost" when its transaction's fenced completion matched nothing and rolled back.
 */
final class FenceLog {

    static final String FENCED_OUT = "fenced out: the lease was lost";

    private FenceLog() {
    }

    /** How many attempts the workers of the run in {@code runDir} saw fenced out at their commit. */
    static long fencedOut(Path runDir) throws IOException {
        long fenced = 0;
        try (Stream<Path> files = Files.list(runDir)) {
            for (Path workerLog : files.filter(f -> f.getFileName().toString().matches("w\\d+\\.log")).toList()) {
                try (Stream<String> lines = Files.lines(workerLog)) {
                    fenced += lines.filter(line -> line.contains(FENCED_OUT)).count();
                }
            }
        }
        return fenced;
    }
}
