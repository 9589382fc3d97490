package dev.docket.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the next demo does with the runs earlier demos left: a run whose lock is free (its demo is gone)
 * is deleted; a run whose lock is held (its demo is alive), one without a lock yet, and anything not
 * named like a run are left alone. {@link DemoProcessTest} covers stopping a real PostgreSQL.
 */
class DemoPostgresTest {

    @TempDir
    Path tmp;

    private Path run(String name, boolean withLock) throws Exception {
        Path run = Files.createDirectories(tmp.resolve(name).resolve("data"));
        Files.writeString(run.resolve("PG_VERSION"), "18\n");
        if (withLock) {
            Files.writeString(tmp.resolve(name).resolve("owner.lock"), "");
        }
        return tmp.resolve(name);
    }

    @Test
    void aRunWhoseDemoIsGoneIsDeletedAndTheOthersAreKept() throws Exception {
        Path abandoned = run(DemoPostgres.RUN_PREFIX + "gone", true);
        Path alive = run(DemoPostgres.RUN_PREFIX + "alive", true);
        Path starting = run(DemoPostgres.RUN_PREFIX + "starting", false);
        Path other = run("not-a-demo", true);

        try (FileChannel lock = FileChannel.open(alive.resolve("owner.lock"), StandardOpenOption.WRITE)) {
            lock.lock();

            assertThat(DemoPostgres.sweepStale(tmp)).containsExactly(abandoned);
        }

        assertThat(abandoned).doesNotExist();
        assertThat(alive.resolve("data/PG_VERSION")).exists();
        assertThat(starting.resolve("data/PG_VERSION")).exists();
        assertThat(other.resolve("data/PG_VERSION")).exists();
    }
}
