package dev.docket.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.Docket;
import dev.docket.JobInfo;
import dev.docket.testing.DocketTest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The arguments of {@code docket}, run as its own process the way a shell runs it: text is stored as
 * the bytes the process received, whatever the locale, or refused; never with a U+FFFD it did not get.
 */
class CliArgumentBytesTest extends DocketTest {

    /** What a run printed and its exit status. */
    record Result(int exit, String out, String err) {
    }

    /**
     * Runs {@code java -cp ... DocketCommand enqueue ...} through {@code sh}, whose {@code printf}
     * makes the argument bytes (octal escapes), with only {@code env} in the environment.
     */
    private Result enqueue(Map<String, String> env, String tenantPrintf, String payloadPrintf)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
                "exec \"$0\" -Xmx128m -cp \"$1\" " + DocketCommand.class.getName() + " enqueue --kind qa_bytes"
                        + " --tenant \"$(printf '" + tenantPrintf + "')\" --payload \"$(printf '" + payloadPrintf + "')\""
                        + " --database-url \"$2\" --schema \"$3\"",
                java, System.getProperty("java.class.path"), db.jdbcUrl(), schema));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/bin:/bin");
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] out = process.getInputStream().readAllBytes();
        byte[] err = process.getErrorStream().readAllBytes();
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Result(process.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }

    private List<dev.docket.JobSummary> jobs(Docket docket) {
        return docket.admin().jobs(dev.docket.JobQuery.all());
    }

    /** `LANG` and `LC_ALL` unset: the JVM decodes arguments as ASCII, yet `café ✓` is stored exactly. */
    @Test
    void textIsExactUnderALocaleThatIsNotUtf8() throws Exception {
        Docket docket = docket();

        Result r = enqueue(Map.of(), "caf\\303\\251", "{\"n\":\"caf\\303\\251 \\342\\234\\223\"}");

        assertThat(r.exit()).as("stderr: %s", r.err()).isZero();
        long id = Long.parseLong(r.out().strip().split(" ")[0]);
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.tenant()).isEqualTo("café");
        assertThat(job.payload()).contains("\"café ✓\"").doesNotContain("\uFFFD");
    }

    /** Under C.UTF-8, an invalid byte or an encoded surrogate in an argument is refused, naming the option. */
    @Test
    void invalidUtf8IsRefusedNotReplaced() throws Exception {
        Docket docket = docket();

        for (String tenant : List.of("x\\377y", "x\\355\\240\\200")) {
            for (Map<String, String> env : List.of(Map.of("LC_ALL", "C.UTF-8"), Map.<String, String>of())) {
                Result r = enqueue(env, tenant, "{}");

                assertThat(r.exit()).as("%s under %s; stdout: %s, stderr: %s", tenant, env, r.out(), r.err()).isEqualTo(2);
                assertThat(r.err().strip()).startsWith("docket: ").contains("--tenant").contains("UTF-8");
                assertThat(r.err().strip().lines()).hasSize(1);
            }
        }
        assertThat(jobs(docket)).isEmpty();
    }

    /** An environment variable the command reads is UTF-8 or refused too, not decoded into U+FFFD. */
    @Test
    void anEnvironmentVariableThatIsNotUtf8IsRefused() throws Exception {
        Docket docket = docket();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder builder = new ProcessBuilder(List.of("/bin/sh", "-c",
                "DOCKET_DATABASE_URL=\"$2&ApplicationName=$(printf 'x\\377y')\" exec \"$0\" -Xmx128m -cp \"$1\" "
                        + DocketCommand.class.getName() + " enqueue --kind qa_bytes --payload '{}' --schema \"$3\"",
                java, System.getProperty("java.class.path"), db.jdbcUrl(), schema));
        builder.environment().clear();
        builder.environment().put("PATH", "/usr/bin:/bin");
        builder.environment().put("LC_ALL", "C.UTF-8");
        Process process = builder.redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();

        assertThat(process.exitValue()).as(output).isEqualTo(2);
        assertThat(output.strip()).startsWith("docket: ").contains("DOCKET_DATABASE_URL").contains("UTF-8");
        assertThat(jobs(docket)).isEmpty();
    }
}
