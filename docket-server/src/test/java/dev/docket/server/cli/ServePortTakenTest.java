package dev.docket.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.docket.testing.DocketTest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code docket serve} on a port in use, run as its own process with the logging {@code main} sets up. */
class ServePortTakenTest extends DocketTest {

    @Test
    void aPortInUseIsOneLineAndExitOneWithNoWorkerStarted() throws Exception {
        docket(); // the schema, migrated
        try (ServerSocket taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Process process = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx128m", "-cp", System.getProperty("java.class.path"), DocketCommand.class.getName(), "serve",
                    "--port", Integer.toString(taken.getLocalPort()), "--database-url", db.jdbcUrl(), "--schema", schema))
                    .redirectErrorStream(true).start();
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

            assertThat(process.exitValue()).as(output).isEqualTo(1);
            assertThat(output.strip().lines()).as(output).singleElement().asString()
                    .startsWith("docket: cannot serve on 127.0.0.1:" + taken.getLocalPort() + ": ")
                    .containsIgnoringCase("in use");
        }
    }
}
