package dev.docket.server.dashboard;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's Chromium, headless, for the dashboard's browser tests: each browser gets a profile of its own in a
 * temporary directory, removed when it quits.
 */
final class HeadlessChromium extends ChromeDriver {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private final Path profile;

    private HeadlessChromium(ChromeDriverService service, ChromeOptions options, Path profile) {
        super(service, options);
        this.profile = profile;
    }

    /** Skips the calling test class where Chromium is not installed (`.ci/run` installs it). */
    static void assumeInstalled() {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "headless Chromium is not installed: skipping the dashboard's browser tests");
    }

    /** A browser in a 1280×1000 window. */
    static HeadlessChromium start() throws IOException {
        Path profile = Files.createTempDirectory("docket-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--window-size=1280,1000", "--user-data-dir=" + profile);
        return new HeadlessChromium(new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build(), options, profile);
    }

    /** Quits the browser and removes its profile. */
    @Override
    public void quit() {
        super.quit();
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.comparingInt(Path::getNameCount).reversed()).map(Path::toFile)
                    .forEach(File::delete);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
