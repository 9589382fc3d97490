package dev.docket.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.docket.server.api.Access;
import dev.docket.server.auth.Role;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The OpenAPI document describes exactly the API routes the server registers, with their roles. */
class OpenApiTest extends ServerTest {

    private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    private static JsonNode document() throws Exception {
        try (InputStream in = DocketServer.class.getResourceAsStream("/openapi.json")) {
            assertThat(in).as("openapi.json on the class path").isNotNull();
            return JSON.readTree(in);
        }
    }

    /** The API: everything under /api, and the operational endpoints; dashboard pages and assets are not. */
    private static boolean isApi(String path) {
        return path.startsWith("/api/") || List.of("/health", "/ready", "/metrics").contains(path);
    }

    private static List<String> roles(Access access) {
        if (access == Access.PUBLIC) {
            return List.of();
        }
        return Arrays.stream(Role.values()).filter(access::allows).map(Role::label).toList();
    }

    @Test
    void parsesAsOpenApi31WithBearerSecurity() throws Exception {
        JsonNode doc = document();

        assertThat(doc.get("openapi").asText()).isEqualTo("3.1.0");
        assertThat(doc.at("/components/securitySchemes/bearer/scheme").asText()).isEqualTo("bearer");
        assertThat(doc.at("/components/schemas/Error/required").toString()).contains("error").contains("message");
    }

    @Test
    void listsEveryRegisteredApiRouteWithItsRoles() throws Exception {
        JsonNode paths = document().get("paths");
        List<DocketServer.Route> api = server.routes().stream().filter(r -> isApi(r.path())).toList();
        assertThat(api).hasSizeGreaterThanOrEqualTo(22);

        Set<String> registered = new TreeSet<>();
        for (DocketServer.Route route : api) {
            String method = route.method().toLowerCase(Locale.ROOT);
            registered.add(method + " " + route.path());
            JsonNode operation = paths.path(route.path()).path(method);
            assertThat(operation.isObject()).as("%s %s is in openapi.json", route.method(), route.path()).isTrue();
            assertThat(route.access()).as("%s %s declares its access", route.method(), route.path()).isNotNull();
            List<String> documented = new ArrayList<>();
            operation.get("x-docket-roles").forEach(r -> documented.add(r.asText()));
            assertThat(documented).as("roles of %s %s", route.method(), route.path())
                    .containsExactlyInAnyOrderElementsOf(roles(route.access()));
            if (route.access() == Access.PUBLIC) {
                assertThat(operation.get("security")).as("%s %s needs no token", route.method(), route.path()).isEmpty();
            } else {
                assertThat(operation.at("/responses/401/content/application~1json/schema/$ref").asText())
                        .isEqualTo("#/components/schemas/Error");
            }
        }

        Set<String> documented = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            path.getValue().fieldNames().forEachRemaining(m -> {
                if (HTTP_METHODS.contains(m)) {
                    documented.add(m + " " + path.getKey());
                }
            });
        }
        assertThat(documented).as("documented operations that the server does not register").isEqualTo(registered);
    }

    /** A client can rely on the list of codes: every code the server answers with is documented in both places. */
    @Test
    void everyErrorCodeIsDocumentedInTheOpenApiDocumentAndTheReadme() throws Exception {
        String described = document().at("/components/schemas/Error/properties/error/description").asText();
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("..", "README.md"));
        for (String code : dev.docket.server.api.ApiErrors.CODES) {
            assertThat(described).as("openapi.json Error.error lists %s", code).containsPattern("\\b" + code + "\\b");
            assertThat(readme).as("README lists %s", code).contains("`" + code + "`");
        }
        for (int status = 400; status < 600; status++) {
            assertThat(dev.docket.server.api.ApiErrors.CODES).as("the code for status %d", status)
                    .contains(dev.docket.server.api.ApiErrors.codeFor(status));
        }
    }

    @Test
    void everyErrorResponseHasTheErrorShape() throws Exception {
        JsonNode paths = document().get("paths");
        for (Iterator<Map.Entry<String, JsonNode>> it = paths.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            for (Iterator<Map.Entry<String, JsonNode>> ops = path.getValue().fields(); ops.hasNext(); ) {
                Map.Entry<String, JsonNode> op = ops.next();
                for (Iterator<Map.Entry<String, JsonNode>> rs = op.getValue().get("responses").fields(); rs.hasNext(); ) {
                    Map.Entry<String, JsonNode> response = rs.next();
                    if (response.getKey().startsWith("4") || response.getKey().startsWith("5")) {
                        assertThat(response.getValue().at("/content/application~1json/schema/$ref").asText())
                                .as("%s %s %s", op.getKey(), path.getKey(), response.getKey())
                                .isEqualTo("#/components/schemas/Error");
                    }
                }
            }
        }
    }
}
