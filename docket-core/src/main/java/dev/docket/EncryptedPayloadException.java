package dev.docket;

/**
 * A payload, output or signal payload encrypted at rest ({@link JobKind.Builder#encrypted}) that cannot be
 * encrypted or read here: no keys configured ({@link Docket.Builder#payloadKeys}), no key of the id it
 * was written under, a value that fails authentication (tampered with, or a different key under the same
 * id), or a value stored in clear for a kind that refuses it. The message says which and names the key id
 * and the job, never the payload or a key.
 */
public class EncryptedPayloadException extends DocketException {

    private final boolean keyMissing;

    /**
     * @param keyMissing whether the value may become readable without changing it: its key (or any key) is
     *                   missing here and may be configured
     */
    public EncryptedPayloadException(String message, boolean keyMissing) {
        super(message);
        this.keyMissing = keyMissing;
    }

    /**
     * Whether configuring a key would make the value readable (true: no keys, or not the key of its id);
     * false when the value itself is wrong (tampered, a different key under its id, stored in clear).
     */
    public boolean keyMissing() {
        return keyMissing;
    }
}
