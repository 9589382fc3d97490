package dev.docket;

import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * One AES-256 key for payloads encrypted at rest ({@link JobKind.Builder#encrypted}), with the id that
 * is stored beside each value it encrypts, so that the value can find its key again after a rotation.
 * Immutable; {@link #toString()} names the id only, never the key.
 */
public final class PayloadKey {

    /** What a key id may be: 1 to 64 characters of {@code A-Z a-z 0-9 _ . -}. */
    public static final Pattern KEY_ID = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    /** The key length, in bytes: AES-256. */
    public static final int KEY_BYTES = 32;

    private final String id;
    private final SecretKey key;

    private PayloadKey(String id, byte[] key) {
        this.id = id;
        this.key = new SecretKeySpec(key, "AES");
    }

    /**
     * A key from its 32 bytes (copied).
     *
     * @throws IllegalArgumentException for an id that is not 1 to 64 characters of {@code A-Z a-z 0-9 _ . -},
     *                                  or a key that is not 32 bytes long
     */
    public static PayloadKey of(String id, byte[] key) {
        checkId(id);
        Objects.requireNonNull(key, "key");
        if (key.length != KEY_BYTES) {
            throw new IllegalArgumentException("payload key '" + id + "' must be " + KEY_BYTES
                    + " bytes (AES-256), was " + key.length);
        }
        byte[] copy = key.clone();
        try {
            return new PayloadKey(id, copy);
        } finally {
            Arrays.fill(copy, (byte) 0);
        }
    }

    /**
     * A key from its 32 bytes in base64 (standard or URL-safe alphabet, padding optional), as
     * {@code openssl rand -base64 32} prints it.
     *
     * @throws IllegalArgumentException for a bad id, text that is not base64 or not 32 bytes; the message
     *                                  never contains the key text
     */
    public static PayloadKey ofBase64(String id, String base64) {
        checkId(id);
        Objects.requireNonNull(base64, "base64");
        String text = base64.strip();
        byte[] bytes;
        try {
            bytes = (text.indexOf('-') >= 0 || text.indexOf('_') >= 0 ? Base64.getUrlDecoder() : Base64.getDecoder())
                    .decode(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("payload key '" + id + "' is not valid base64");
        }
        try {
            return of(id, bytes);
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    private static void checkId(String id) {
        if (id == null || !KEY_ID.matcher(id).matches()) {
            throw new IllegalArgumentException("a payload key id must be 1 to 64 characters of A-Z a-z 0-9 _ . -, was "
                    + (id == null ? "null" : id.length() > 64 ? id.length() + " characters" : "'" + printable(id) + "'"));
        }
    }

    private static String printable(String s) {
        StringBuilder out = new StringBuilder();
        s.codePoints().forEach(c -> out.append(c >= 0x20 && c < 0x7f ? Character.toString(c) : "?"));
        return out.toString();
    }

    /** The key's id, stored with every value it encrypts. */
    public String id() {
        return id;
    }

    /** The key, for {@code javax.crypto}. */
    public SecretKey secretKey() {
        return key;
    }

    @Override
    public String toString() {
        return "PayloadKey[" + id + "]";
    }
}
