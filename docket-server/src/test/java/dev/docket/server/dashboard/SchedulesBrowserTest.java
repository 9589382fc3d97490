package dev.docket.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import dev.docket.Docket;
import dev.docket.PeriodicJob;
import dev.docket.ScheduleDefinition;
import dev.docket.ScheduleInfo;
import dev.docket.Worker;
import dev.docket.server.DocketServer;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.test.TestPostgres;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The schedules page in headless Chromium: stored and code-declared schedules side by side, next slots in the
 * schedule's zone and the viewer's, last runs linked to their jobs, who changed each one; an admin creates,
 * edits, pauses, resumes and deletes a stored one through the page (hostile input refused with a message), and
 * a viewer gets no forms.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchedulesBrowserTest {

    private static final String ADMIN = "admin-token-for-schedule-browser-tests";
    private static final String VIEWER = "viewer-token-for-schedule-browser-tests";
    private static final String SCREENSHOTS = System.getProperty("docket.screenshots", System.getenv("DOCKET_SCREENSHOTS"));

    private final String schema = "dash_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private Docket docket;
    private Worker worker;
    private DocketServer server;
    private WebDriver driver;
    private WebDriverWait wait;

    @BeforeAll
    void start() throws IOException {
        HeadlessChromium.assumeInstalled();
        docket = Docket.builder(TestPostgres.get().dataSource()).schema(schema)
                .periodic(PeriodicJob.of("code-tick", "*/5 * * * * *", "tick", null)).build();
        docket.migrate();
        docket.admin().createSchedule(ScheduleDefinition.of("every-second", "* * * * * *", "tick"), "seed");
        worker = docket.worker().queue("default", 2).maintenanceInterval(Duration.ofMillis(100))
                .handler("tick", Object.class, (t, ctx) -> { }).start();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> docket.admin().schedule("code-tick").isPresent()
                && docket.admin().scheduleRuns("every-second", 5).size() >= 2);
        TokenStore tokens = new TokenStore();
        tokens.add(Role.ADMIN, ADMIN);
        tokens.add(Role.VIEWER, VIEWER);
        server = DocketServer.start(docket, tokens, DocketServer.Config.defaults().withPort(0));
        driver = HeadlessChromium.start();
        wait = new WebDriverWait(driver, Duration.ofSeconds(20));
        wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    }

    @AfterAll
    void stop() throws IOException {
        if (driver != null) {
            driver.quit();
        }
        if (server != null) {
            server.close();
        }
        if (worker != null) {
            worker.close();
        }
        if (docket != null) {
            docket.close();
            TestPostgres.get().dropSchema(schema);
        }
    }

    private void login(String token) {
        driver.get(server.baseUrl() + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        driver.findElement(By.id("token")).sendKeys(token);
        driver.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("logout")));
        driver.findElement(By.cssSelector("[data-nav='schedules']")).click();
        wait.until(d -> "#/schedules".equals(((JavascriptExecutor) d).executeScript(
                "return document.getElementById('main').dataset.loaded;")));
    }

    private WebElement row(String name) {
        return driver.findElement(By.cssSelector("#schedule-list tr[data-schedule='" + name + "']"));
    }

    private void submitForm() {
        driver.findElement(By.id("schedule-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("schedule-flash")));
    }

    private void type(String id, String text) {
        WebElement input = driver.findElement(By.id(id));
        input.clear();
        input.sendKeys(text);
    }

    /**
     * The page, whole, to target/screenshots, and for the README to the folder {@code docket.screenshots} names
     * (as {@code DashboardBrowserTest} does: {@code -Ddocket.screenshots=docs/screenshots}).
     */
    private void screenshot(String name) throws IOException {
        Dimension window = driver.manage().window().getSize();
        JavascriptExecutor js = (JavascriptExecutor) driver;
        long chrome = (Long) js.executeScript("return window.outerHeight - window.innerHeight");
        long height = (Long) js.executeScript("return Math.ceil(document.documentElement.scrollHeight)");
        driver.manage().window().setSize(new Dimension(window.getWidth(), (int) Math.max(window.getHeight(), height + chrome)));
        List<Path> dirs = new java.util.ArrayList<>(List.of(Path.of("target", "screenshots")));
        if (SCREENSHOTS != null && !SCREENSHOTS.isBlank()) {
            Path root = Path.of("").toAbsolutePath();
            while (root.getParent() != null && !Files.exists(root.resolve("mvnw"))) {
                root = root.getParent();
            }
            dirs.add(root.resolve(SCREENSHOTS));
        }
        try {
            File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            for (Path dir : dirs) {
                Files.createDirectories(dir);
                Files.copy(shot.toPath(), dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            driver.manage().window().setSize(window);
        }
    }

    @Test
    void anAdminSeesBothOriginsAndChangesAStoredScheduleAndAViewerOnlyReads() throws IOException {
        login(ADMIN);

        WebElement code = row("code-tick");
        assertThat(code.getAttribute("data-origin")).isEqualTo("code");
        assertThat(code.findElement(By.cssSelector("[data-col='actions']")).getText()).isEqualTo("declared in code");
        assertThat(code.findElements(By.cssSelector("[data-edit]"))).isEmpty();

        WebElement stored = row("every-second");
        assertThat(stored.getAttribute("data-origin")).isEqualTo("runtime");
        assertThat(stored.findElement(By.cssSelector("[data-col='changed-by']")).getText()).isEqualTo("seed");
        List<WebElement> slots = stored.findElements(By.cssSelector("[data-col='next'] li"));
        assertThat(slots).hasSize(5);
        assertThat(slots.getFirst().findElement(By.cssSelector("[data-zone='schedule']")).getText()).endsWith(" UTC");
        String viewerZone = (String) ((JavascriptExecutor) driver).executeScript(
                "return Intl.DateTimeFormat().resolvedOptions().timeZone;");
        assertThat(slots.getFirst().findElement(By.cssSelector("[data-zone='viewer']")).getText()).endsWith(viewerZone);
        List<WebElement> runs = stored.findElements(By.cssSelector("[data-col='runs'] li a"));
        assertThat(runs).isNotEmpty();
        String jobId = runs.getFirst().getText().substring(1);
        assertThat(docket.admin().scheduleRuns("every-second", 5)).extracting(r -> String.valueOf(r.jobId())).contains(jobId);
        assertThat(stored.findElement(By.cssSelector("[data-col='runs'] li .badge")).getText()).isNotBlank();

        type("schedule-name", "<img src=x onerror=alert(1)>");
        type("schedule-cron", "0 3 * * *");
        type("schedule-kind", "report");
        submitForm();
        assertThat(driver.findElement(By.id("schedule-flash")).getText()).contains("schedule name must be");
        type("schedule-name", "nightly");
        type("schedule-cron", "0 0 31 2 *");
        submitForm();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("schedule-flash"), "never fires"));
        type("schedule-payload", "{not json");
        type("schedule-cron", "0 3 * * *");
        submitForm();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("schedule-flash"), "not valid JSON"));
        assertThat(docket.admin().schedule("nightly")).isEmpty();

        type("schedule-zone", "Europe/Berlin");
        type("schedule-payload", "{\"format\": \"pdf\"}");
        submitForm();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("schedule-flash"), "created"));
        assertThat(driver.findElement(By.id("schedule-flash")).getText()).contains("no live worker serves kind report");
        ScheduleInfo created = docket.admin().schedule("nightly").orElseThrow();
        assertThat(created.zone().getId()).isEqualTo("Europe/Berlin");
        assertThat(created.payloadJson()).contains("pdf");
        assertThat(created.createdBy()).isEqualTo("admin, dashboard");
        wait.until(d -> !d.findElements(By.cssSelector("#schedule-list tr[data-schedule='nightly']")).isEmpty());
        assertThat(row("nightly").findElement(By.cssSelector("[data-col='next'] [data-zone='schedule']")).getText())
                .contains("03:00").endsWith("Europe/Berlin");
        assertThat(row("nightly").findElements(By.cssSelector("[data-col='unserved']"))).hasSize(1);
        screenshot("schedules");
        driver.manage().window().setSize(new Dimension(420, 1000));
        try {
            assertThat((Boolean) ((JavascriptExecutor) driver).executeScript(
                    "return document.documentElement.scrollWidth <= document.documentElement.clientWidth;"))
                    .as("the page fits 420 px (the table scrolls in its frame)").isTrue();
            screenshot("schedules-420");
        } finally {
            driver.manage().window().setSize(new Dimension(1280, 1000));
        }

        row("nightly").findElement(By.cssSelector("[data-edit='nightly']")).click();
        assertThat(driver.findElement(By.id("schedule-name")).isEnabled()).isFalse();
        assertThat(driver.findElement(By.id("schedule-payload")).getAttribute("value")).contains("pdf");
        type("schedule-cron", "30 4 * * *");
        submitForm();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("schedule-flash"), "saved"));
        assertThat(docket.admin().schedule("nightly").orElseThrow().cron()).isEqualTo("30 4 * * *");
        assertThat(docket.admin().schedule("nightly").orElseThrow().zone().getId()).isEqualTo("Europe/Berlin");

        row("nightly").findElement(By.cssSelector("[data-pause='nightly']")).click();
        wait.until(d -> "true".equals(row("nightly").getAttribute("data-paused")));
        assertThat(docket.admin().schedule("nightly").orElseThrow().paused()).isTrue();
        row("nightly").findElement(By.cssSelector("[data-resume='nightly']")).click();
        wait.until(d -> "false".equals(row("nightly").getAttribute("data-paused")));

        row("nightly").findElement(By.cssSelector("[data-delete='nightly']")).click();
        driver.findElement(By.id("confirm-yes")).click();
        wait.until(d -> d.findElements(By.cssSelector("#schedule-list tr[data-schedule='nightly']")).isEmpty());
        assertThat(docket.admin().schedule("nightly")).isEmpty();

        runs = row("every-second").findElements(By.cssSelector("[data-col='runs'] li a"));
        String linked = runs.getFirst().getText().substring(1);
        runs.getFirst().click();
        wait.until(d -> ((String) ((JavascriptExecutor) d).executeScript("return location.hash;")).equals("#/jobs/" + linked));

        driver.findElement(By.id("logout")).click();
        login(VIEWER);
        assertThat(driver.findElements(By.id("schedule-form"))).isEmpty();
        assertThat(driver.findElements(By.cssSelector("#schedule-list [data-edit]"))).isEmpty();
        assertThat(driver.findElements(By.cssSelector("#schedule-list [data-pause]"))).isEmpty();
        assertThat(row("every-second").findElement(By.cssSelector("[data-col='changed-by']")).getText()).isEqualTo("seed");
    }
}
