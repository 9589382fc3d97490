package dev.docket;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Fixed keys given as configuration: {@code PayloadKeyProvider.of} and {@code parse}. */
final class ConfiguredPayloadKeys implements PayloadKeyProvider {

    private final Map<String, PayloadKey> byId;
    private final PayloadKey current;

    /** The keys, the current last. */
    ConfiguredPayloadKeys(List<PayloadKey> keys) {
        this(keys, keys == null || keys.isEmpty() ? null : keys.getLast());
    }

    private ConfiguredPayloadKeys(List<PayloadKey> keys, PayloadKey current) {
        Objects.requireNonNull(keys, "keys");
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("payload keys: give at least one key");
        }
        Map<String, PayloadKey> ids = new LinkedHashMap<>();
        for (PayloadKey key : keys) {
            Objects.requireNonNull(key, "keys must not contain null");
            if (ids.putIfAbsent(key.id(), key) != null) {
                throw new IllegalArgumentException("payload keys: the key id '" + key.id() + "' is given twice");
            }
        }
        this.byId = Map.copyOf(ids);
        this.current = current;
    }

    /** See {@code PayloadKeyProvider.parse}. */
    static ConfiguredPayloadKeys parse(String config) {
        if (config == null || config.isBlank()) {
            throw new IllegalArgumentException("payload keys: the configuration is empty; give kid:base64key[,kid:base64key...]");
        }
        List<PayloadKey> keys = new ArrayList<>();
        PayloadKey marked = null;
        String[] entries = config.split(",", -1);
        for (int i = 0; i < entries.length; i++) {
            String entry = entries[i].strip();
            int colon = entry.indexOf(':');
            if (entry.isEmpty() || colon < 0) {
                throw new IllegalArgumentException("payload keys: entry " + (i + 1) + " of " + entries.length
                        + " is not kid:base64key" + (entry.isEmpty() ? " (it is empty)" : " (no ':')"));
            }
            String id = entry.substring(0, colon).strip();
            boolean current = id.startsWith("*");
            if (current) {
                id = id.substring(1);
            }
            PayloadKey key;
            try {
                key = PayloadKey.ofBase64(id, entry.substring(colon + 1));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("payload keys: entry " + (i + 1) + ": " + e.getMessage());
            }
            if (current) {
                if (marked != null) {
                    throw new IllegalArgumentException("payload keys: two keys are marked current with '*' ('"
                            + marked.id() + "' and '" + id + "'); mark one");
                }
                marked = key;
            }
            keys.add(key);
        }
        return new ConfiguredPayloadKeys(keys, marked != null ? marked : keys.getLast());
    }

    @Override
    public PayloadKey current() {
        return current;
    }

    @Override
    public Optional<PayloadKey> key(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    @Override
    public String toString() {
        return "PayloadKeys[current=" + current.id() + ", ids=" + byId.keySet() + "]";
    }
}
