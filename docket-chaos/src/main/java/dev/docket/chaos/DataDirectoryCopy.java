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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A hot base backup ({@link #hotBackup}), and its file copy (between {@code pg_backup_start} and
 * {@code pg_backup_stop}): everything but what the PostgreSQL documentation says to leave out (the WAL,
 * which the standby streams from its replication slot, the pid file, replication slots and temporary
 * statistics).
 * Files that the running server removes during the copy are skipped, as they would be by
 * {@code pg_basebackup}.
 */
final class DataDirectoryCopy {

    private static final Set<String> EMPTIED = Set.of("pg_wal", "pg_replslot", "pg_stat_tmp", "pg_dynshmem",
            "pg_notify", "pg_serial", "pg_snapshots", "pg_subtrans");
    private static final Set<String> SKIPPED = Set.of("postmaster.pid", "postmaster.opts", "backup_label");

    private DataDirectoryCopy() {
    }

    /**
     * Clones the running server {@code primary}, whose data directory is {@code from}, into {@code to}:
     * {@code pg_backup_start}, the file copy, {@code pg_backup_stop}, whose label the clone's recovery
     * starts from (the embedded binaries have no {@code pg_basebackup}, and a client of another major
     * version refuses to stream from this one).
     */
    static void hotBackup(DataSource primary, Path from, Path to) throws SQLException, IOException {
        try (Connection c = primary.getConnection(); Statement st = c.createStatement()) {
            st.execute("SELECT pg_backup_start('chaos clone', true)");
            copy(from, to);
            try (ResultSet rs = st.executeQuery("SELECT labelfile FROM pg_backup_stop(false)")) {
                rs.next();
                Files.writeString(to.resolve("backup_label"), rs.getString(1));
            }
        }
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
