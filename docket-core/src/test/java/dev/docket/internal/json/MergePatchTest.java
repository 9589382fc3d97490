package dev.docket.internal.json;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** JSON Merge Patch, with the test cases of RFC 7386 appendix A (no database). */
class MergePatchTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode json(String text) throws Exception {
        return JSON.readTree(text.replace('\'', '"'));
    }

    private static String patched(String target, String patch) throws Exception {
        return JSON.writeValueAsString(MergePatch.apply(json(target), json(patch))).replace('"', '\'');
    }

    @Test
    void theExamplesOfRfc7386() throws Exception {
        assertThat(patched("{'a':'b'}", "{'a':'c'}")).isEqualTo("{'a':'c'}");
        assertThat(patched("{'a':'b'}", "{'b':'c'}")).isEqualTo("{'a':'b','b':'c'}");
        assertThat(patched("{'a':'b'}", "{'a':null}")).isEqualTo("{}");
        assertThat(patched("{'a':'b','b':'c'}", "{'a':null}")).isEqualTo("{'b':'c'}");
        assertThat(patched("{'a':['b']}", "{'a':'c'}")).isEqualTo("{'a':'c'}");
        assertThat(patched("{'a':'c'}", "{'a':['b']}")).isEqualTo("{'a':['b']}");
        assertThat(patched("{'a':{'b':'c'}}", "{'a':{'b':'d','c':null}}")).isEqualTo("{'a':{'b':'d'}}");
        assertThat(patched("{'a':[{'b':'c'}]}", "{'a':[1]}")).isEqualTo("{'a':[1]}");
        assertThat(patched("['a','b']", "['c','d']")).isEqualTo("['c','d']");
        assertThat(patched("{'a':'b'}", "['c']")).isEqualTo("['c']");
        assertThat(patched("{'a':'foo'}", "null")).isEqualTo("null");
        assertThat(patched("{'a':'foo'}", "'bar'")).isEqualTo("'bar'");
        assertThat(patched("{'e':null}", "{'a':1}")).isEqualTo("{'e':null,'a':1}");
        assertThat(patched("[1,2]", "{'a':'b','c':null}")).isEqualTo("{'a':'b'}");
        assertThat(patched("{}", "{'a':{'bb':{'ccc':null}}}")).isEqualTo("{'a':{'bb':{}}}");
    }

    @Test
    void theTargetIsNeverModified() throws Exception {
        JsonNode target = json("{'a':{'b':1},'c':2}");
        JsonNode patch = json("{'a':{'b':null},'c':null,'d':[1]}");
        JsonNode result = MergePatch.apply(target, patch);
        assertThat(target).isEqualTo(json("{'a':{'b':1},'c':2}"));
        assertThat(result).isEqualTo(json("{'a':{},'d':[1]}"));
        ((com.fasterxml.jackson.databind.node.ArrayNode) result.get("d")).add(2);
        assertThat(patch.get("d").size()).as("the patch's values are copied, not shared").isEqualTo(1);
    }

    @Test
    void applyingTwiceIsApplyingOnce() throws Exception {
        JsonNode target = json("{'to':'old@example.com','n':1,'x':{'y':1}}");
        JsonNode patch = json("{'to':'new@example.com','n':null,'x':{'z':2}}");
        JsonNode once = MergePatch.apply(target, patch);
        assertThat(MergePatch.apply(once, patch)).isEqualTo(once);
    }

    @Test
    void anAbsentTargetIsAnEmptyObject() throws Exception {
        assertThat(MergePatch.apply(null, json("{'a':{'b':null,'c':1}}"))).isEqualTo(json("{'a':{'c':1}}"));
    }
}
