package dev.docket.server.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The bearer tokens the server accepts, each with a role. Tokens are kept as SHA-256 digests and
 * compared in constant time against every entry, so neither a timing nor a memory dump reveals them.
 *
 * <p>Sources: {@code DOCKET_TOKENS="admin:TOKEN,viewer:TOKEN"}, or a file with one
 * {@code ROLE TOKEN} (or {@code ROLE:TOKEN}) per line, {@code #} for comments.
 */
public final class TokenStore {

    /** Shortest token accepted: shorter ones are guessable. */
    public static final int MIN_TOKEN_LENGTH = 16;

    private record Entry(byte[] digest, Role role) {
    }

    private final List<Entry> entries = new ArrayList<>();

    public boolean isEmpty() {
        return entries.isEmpty();
    }

    public void add(Role role, String token) {
        if (token == null || token.length() < MIN_TOKEN_LENGTH || token.chars().anyMatch(ch -> ch <= ' ' || ch > '~')) {
            throw new IllegalArgumentException("a " + role.label() + " token must be at least " + MIN_TOKEN_LENGTH
                    + " printable ASCII characters without spaces");
        }
        entries.add(new Entry(digest(token), role));
    }

    /** Adds {@code role:token} pairs separated by commas (the {@code DOCKET_TOKENS} format). */
    public void addAll(String spec) {
        for (String pair : spec.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int colon = pair.indexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("tokens must be role:token pairs separated by commas");
            }
            add(Role.parse(pair.substring(0, colon)), pair.substring(colon + 1).trim());
        }
    }

    /** Adds the {@code ROLE TOKEN} lines of a file. */
    public void addFile(Path file) throws IOException {
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] parts = l.split("[\\s:]+", 2);
            if (parts.length != 2) {
                throw new IllegalArgumentException(file + " line " + n + ": expected ROLE TOKEN");
            }
            add(Role.parse(parts[0]), parts[1]);
        }
    }

    /** The role of {@code token}, checked against every entry in constant time per entry. */
    public Optional<Role> roleOf(String token) {
        if (token == null || token.isEmpty() || token.length() > 512) {
            return Optional.empty();
        }
        byte[] presented = digest(token);
        Role found = null;
        for (Entry e : entries) {
            if (MessageDigest.isEqual(e.digest(), presented)) {
                found = e.role();
            }
        }
        return Optional.ofNullable(found);
    }

    /** A new random token (32 bytes, hex). */
    public static String generate() {
        byte[] bytes = new byte[32];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
