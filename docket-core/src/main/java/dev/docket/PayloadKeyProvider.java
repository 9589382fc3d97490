package dev.docket;

import java.util.List;
import java.util.Optional;

/**
 * Where the keys of payloads encrypted at rest come from ({@link Docket.Builder#payloadKeys}): the key
 * that encrypts new values, and any key by its id, for values encrypted before a rotation. Implement it
 * over a key management service or a secrets store, or use {@link #of} / {@link #parse} for keys given
 * as configuration.
 *
 * <p>Rotation: make a new key current, keep the old ones answering {@link #key}; values written under an
 * old key stay readable for as long as it is kept, and new values use the current key. Both methods are
 * called for every value encrypted or decrypted: cache inside the provider if fetching a key is slow.
 * Implementations must be thread-safe.
 */
public interface PayloadKeyProvider {

    /** The key new values are encrypted with. */
    PayloadKey current();

    /** The key of id {@code id}, or empty when this provider does not have it (any more). */
    Optional<PayloadKey> key(String id);

    /**
     * A provider of fixed keys, the newest (current) last.
     *
     * @throws IllegalArgumentException for no keys, or two keys of one id
     */
    static PayloadKeyProvider of(List<PayloadKey> keys) {
        return new ConfiguredPayloadKeys(keys);
    }

    /**
     * A provider of fixed keys from configuration text: {@code kid1:base64key,kid2:base64key}, each key
     * 32 bytes in base64 ({@code openssl rand -base64 32}); the newest last, and it is the current key,
     * unless one id is marked with a leading {@code *} ({@code *kid2:...}), which makes that one current.
     * Whitespace around entries is ignored. What {@code docket serve} and the CLI read from
     * {@code DOCKET_PAYLOAD_KEYS}.
     *
     * @throws IllegalArgumentException saying which entry is wrong (malformed, bad base64, not 32 bytes,
     *                                  an id twice, two marked), never with any key text
     */
    static PayloadKeyProvider parse(String config) {
        return ConfiguredPayloadKeys.parse(config);
    }
}
