package dev.docket.internal.crypto;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.docket.EncryptedPayloadException;
import dev.docket.PayloadKey;
import dev.docket.PayloadKeyProvider;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Iterator;
import java.util.Optional;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts payloads, outputs and signal payloads at rest with AES-256-GCM, and reads them back. A value
 * is stored as a JSON envelope in the same {@code jsonb} column:
 * {@code {"docket:encrypted":{"v":1,"kid":"k2","iv":"<12 bytes, base64>","ct":"<ciphertext and 16-byte tag, base64>"}}}.
 * An object whose only field is {@code docket:encrypted} is an envelope; anything else is a value in clear.
 *
 * <p>Each value is bound by GCM's additional data to what it is and where it may be read: a payload to its
 * kind (a job keeps its kind when it is retried, dies, is replayed or moves queue, so those moves keep it
 * readable; pasting it into another kind's job does not), an output and a signal payload to their job's id
 * (a job keeps its id for life) and a signal to its name. A value moved anywhere else fails authentication.
 */
public final class PayloadCrypto {

    /** The field an envelope holds: reserved as the only field of a payload in clear. */
    public static final String FIELD = "docket:encrypted";
    private static final String PREFIX = "{\"" + FIELD + "\"";
    private static final int VERSION = 1;
    private static final int IV_BYTES = 12;
    private static final int TAG_BITS = 128;
    private static final String AAD_PREFIX = "docket:v1\0";
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();

    /** Null when no keys are configured. */
    private final PayloadKeyProvider keys;

    /** {@code keys} null: nothing can be encrypted or read here, and every attempt says so. */
    public PayloadCrypto(PayloadKeyProvider keys) {
        this.keys = keys;
    }

    /** Whether keys are configured. */
    public boolean hasKeys() {
        return keys != null;
    }

    /** The additional data of a payload of {@code kind}. */
    public static String payloadContext(String kind) {
        return "payload\0" + kind;
    }

    /** The additional data of the output of job {@code jobId}. */
    public static String outputContext(long jobId) {
        return "output\0" + jobId;
    }

    /** The additional data of a signal {@code name} sent to job {@code jobId}. */
    public static String signalContext(long jobId, String name) {
        return "signal\0" + jobId + "\0" + name;
    }

    /**
     * Whether stored JSON text is an envelope. Cheap for values in clear: one {@code startsWith}, as
     * both Jackson's and PostgreSQL's {@code jsonb} text put a lone field first.
     */
    public static boolean isSealed(String json) {
        if (json == null || !json.startsWith(PREFIX)) {
            return false;
        }
        try {
            JsonNode node = MAPPER.readTree(json);
            return node.isObject() && node.size() == 1 && node.get(FIELD) != null;
        } catch (JsonProcessingException e) {
            return false;
        }
    }

    /** Whether stored JSON text may be an envelope: the cheap first half of {@link #isSealed}. */
    public static boolean mayBeSealed(String json) {
        return json != null && json.startsWith(PREFIX);
    }

    /**
     * Refuses a payload in clear that would read as an envelope (an object whose only field is
     * {@code docket:encrypted}): stored as it is, the dashboard would show it as encrypted and a worker would try to
     * decrypt it.
     */
    public static void refuseEnvelopeShape(String json, String what) {
        if (isSealed(json)) {
            throw new IllegalArgumentException(what + " must not be an object whose only field is \"" + FIELD
                    + "\": Docket reserves that shape for values encrypted at rest");
        }
    }

    /**
     * {@code json} encrypted under the current key, as an envelope.
     *
     * @throws EncryptedPayloadException without keys
     */
    public String seal(String json, String context, String what) {
        if (keys == null) {
            throw new EncryptedPayloadException(what + " must be encrypted, and no payload keys are configured here "
                    + "(Docket.Builder.payloadKeys, DOCKET_PAYLOAD_KEYS): it was not stored", true);
        }
        PayloadKey key = fromProvider(() -> keys.current(), what);
        if (key == null) {
            throw new EncryptedPayloadException(what + " must be encrypted, and the payload key provider has no "
                    + "current key: it was not stored", true);
        }
        byte[] iv = new byte[IV_BYTES];
        RANDOM.nextBytes(iv);
        byte[] ct;
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key.secretKey(), new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD(aad(context));
            ct = cipher.doFinal(json.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM encryption failed (" + e.getClass().getSimpleName() + ")", e);
        }
        Base64.Encoder b64 = Base64.getEncoder();
        // The id is [A-Za-z0-9_.-] and base64 needs no escaping: no JSON writer needed.
        return PREFIX + ":{\"v\":" + VERSION + ",\"kid\":\"" + key.id() + "\",\"iv\":\"" + b64.encodeToString(iv)
                + "\",\"ct\":\"" + b64.encodeToString(ct) + "\"}}";
    }

    /**
     * The JSON text an envelope holds.
     *
     * @param what names the value in messages ("the payload of job 12")
     * @throws EncryptedPayloadException without keys or without the value's key ({@code keyMissing()}), or
     *                                   for a malformed envelope or one that fails authentication
     */
    public String open(String envelope, String context, String what) {
        JsonNode body;
        try {
            body = MAPPER.readTree(envelope).get(FIELD);
        } catch (JsonProcessingException e) {
            throw malformed(what, "not JSON");
        }
        if (body == null || !body.isObject()) {
            throw malformed(what, "no object under \"" + FIELD + "\"");
        }
        JsonNode v = body.get("v");
        if (v == null || !v.isInt() || v.intValue() != VERSION) {
            throw malformed(what, "envelope version " + (v == null ? "missing" : v.toString().length() > 10 ? "?" : v)
                    + ", this Docket reads version " + VERSION);
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("v") && !name.equals("kid") && !name.equals("iv") && !name.equals("ct")) {
                throw malformed(what, "an unknown field in the envelope");
            }
        }
        String kid = text(body, "kid");
        if (kid == null || !PayloadKey.KEY_ID.matcher(kid).matches()) {
            throw malformed(what, "no valid key id");
        }
        byte[] iv = bytes(body, "iv");
        byte[] ct = bytes(body, "ct");
        if (iv == null || iv.length != IV_BYTES || ct == null || ct.length < TAG_BITS / 8) {
            throw malformed(what, "a missing or malformed iv or ciphertext");
        }
        if (keys == null) {
            throw new EncryptedPayloadException(what + " is encrypted (key '" + kid + "') and no payload keys are "
                    + "configured here (Docket.Builder.payloadKeys, DOCKET_PAYLOAD_KEYS)", true);
        }
        Optional<PayloadKey> key = fromProvider(() -> keys.key(kid), what);
        if (key == null || key.isEmpty()) {
            throw new EncryptedPayloadException(what + " is encrypted under key '" + kid + "', which the payload key "
                    + "provider here does not have; configure that key (old keys must stay for as long as values "
                    + "written under them exist)", true);
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key.get().secretKey(), new GCMParameterSpec(TAG_BITS, iv));
            cipher.updateAAD(aad(context));
            return new String(cipher.doFinal(ct), StandardCharsets.UTF_8);
        } catch (AEADBadTagException e) {
            throw new EncryptedPayloadException(what + " failed authentication under key '" + kid + "': it was "
                    + "changed or moved from another job, or the key of that id here is not the one it was written with",
                    false);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM decryption failed (" + e.getClass().getSimpleName() + ")", e);
        }
    }

    /** The key id an envelope names, or null when it names none readable. */
    public static String keyId(String envelope) {
        try {
            JsonNode kid = MAPPER.readTree(envelope).path(FIELD).path("kid");
            return kid.isTextual() && PayloadKey.KEY_ID.matcher(kid.textValue()).matches() ? kid.textValue() : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /**
     * What the provider answers; a provider that throws (a key service that is down) fails the value as a missing
     * key would, retried, and its exception names only its type: its message might quote what it was asked.
     */
    private static <T> T fromProvider(java.util.function.Supplier<T> ask, String what) {
        try {
            return ask.get();
        } catch (RuntimeException e) {
            throw new EncryptedPayloadException(what + " needs a payload key, and the payload key provider failed ("
                    + e.getClass().getName() + ")", true);
        }
    }

    private static EncryptedPayloadException malformed(String what, String problem) {
        return new EncryptedPayloadException(what + " is not a valid encrypted value: " + problem, false);
    }

    private static String text(JsonNode body, String field) {
        JsonNode n = body.get(field);
        return n != null && n.isTextual() ? n.textValue() : null;
    }

    private static byte[] bytes(JsonNode body, String field) {
        String s = text(body, field);
        if (s == null) {
            return null;
        }
        try {
            return Base64.getDecoder().decode(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static byte[] aad(String context) {
        return (AAD_PREFIX + context).getBytes(StandardCharsets.UTF_8);
    }
}
