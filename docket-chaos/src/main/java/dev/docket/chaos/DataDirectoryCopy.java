package dev.docket.chaos;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The file copy of a hot base backup (between {@code pg_backup_start} and {@code pg_backup_stop}):
 * everything but what the PostgreSQL documentation says to leave out (the WAL, which the standby
 * streams from the replication slot, the pid file, replication slots and temporary statistics).
 * Files that the running server removes during the copy are skipped, as they would be by
 * {@code pg_basebackup}.
 */
final class DataDirectoryCopy {

    private static final Set<String> EMPTIED = Set.of("pg_wal", "pg_replslot", "pg_stat_tmp", "pg_dynshmem",
            "pg_notify", "pg_serial", "pg_snapshots", "pg_subtrans");
    private static final Set<String> SKIPPED = Set.of("postmaster.pid", "postmaster.opts", "backup_label");

    private DataDirectoryCopy() {
    }

    static void copy(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(dir).toString());
                Files.createDirectories(target);
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
                boolean emptied = dir.getParent() != null && dir.getParent().equals(from)
                        && EMPTIED.contains(dir.getFileName().toString());
                if (emptied && dir.getFileName().toString().equals("pg_wal")) {
                    Files.createDirectories(target.resolve("archive_status"));
                }
                return emptied ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                if (!(file.getParent().equals(from) && SKIPPED.contains(file.getFileName().toString()))) {
                    try {
                        Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                    } catch (NoSuchFileException e) {
                        // Removed by the server while we copied: WAL replay recreates whatever it still needs.
                    }
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
    }
}
