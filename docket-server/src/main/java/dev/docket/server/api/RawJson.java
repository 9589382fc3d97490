package dev.docket.server.api;

import com.fasterxml.jackson.annotation.JsonRawValue;
import com.fasterxml.jackson.annotation.JsonValue;

/** JSON text from the database written into a response as JSON, not as a string. */
public record RawJson(String json) {

    @JsonValue
    @JsonRawValue
    public String json() {
        return json;
    }
}
