package dev.docket.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import dev.docket.Docket;
import dev.docket.JobInfo;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.Worker;
import dev.docket.server.DocketServer;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.test.TestPostgres;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Jobs created and edited from the dashboard, in headless Chromium: a producer creates a job with the kinds live
 * workers serve offered; an operator edits a scheduled job's payload and priority, runs it now, and sees the
 * refusal when the job starts while the edit is open; viewers and producers get no edit actions. Jobs go to a
 * queue nobody serves, so nothing runs them meanwhile.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JobEditBrowserTest {

    private static final String OPERATOR = "operator-token-for-job-edit-browser-tests";
    private static final String PRODUCER = "producer-token-for-job-edit-browser-tests";
    private static final String VIEWER = "viewer-token-for-job-edit-browser-tests";

    record Parcel(String address) {
    }

    private final TestPostgres db = TestPostgres.get();
    private final String schema = "dash_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private Docket docket;
    private Worker worker;
    private DocketServer server;
    private WebDriver driver;
    private WebDriverWait wait;

    @BeforeAll
    void start() throws IOException {
        HeadlessChromium.assumeInstalled();
        docket = Docket.builder(db.dataSource()).schema(schema).build();
        docket.migrate();
        // A live worker, so that its kinds are offered; it serves another queue than the tests' jobs use.
        worker = docket.worker().queue("parcels", 1).handler("deliver", Parcel.class, (p, ctx) -> { }).start();
        TokenStore tokens = new TokenStore();
        tokens.add(Role.OPERATOR, OPERATOR);
        tokens.add(Role.PRODUCER, PRODUCER);
        tokens.add(Role.VIEWER, VIEWER);
        server = DocketServer.start(docket, tokens, DocketServer.Config.defaults().withPort(0));
        driver = HeadlessChromium.start();
        wait = new WebDriverWait(driver, Duration.ofSeconds(20));
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
            db.dropSchema(schema);
        }
    }

    private void login(String token) {
        driver.get(server.baseUrl() + "/");
        driver.manage().deleteAllCookies();
        driver.get(server.baseUrl() + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        driver.findElement(By.id("token")).sendKeys(token);
        driver.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("topbar")));
    }

    /** Goes to a page and waits until it has rendered its data (the views mark #main with data-loaded). */
    private void go(String hash) {
        ((JavascriptExecutor) driver).executeScript("location.hash = arguments[0];", hash);
        wait.until(d -> (Boolean) ((JavascriptExecutor) d).executeScript(
                "const m = document.getElementById('main');"
                        + "return m.dataset.loaded !== undefined && m.dataset.loaded === location.hash;"));
    }

    private long scheduledParcel(String address) {
        return docket.enqueue("deliver", new Parcel(address),
                JobOptions.builder().queue("held").delay(Duration.ofDays(1)).build());
    }

    private static void type(WebElement input, String text) {
        input.clear();
        input.sendKeys(text);
    }

    @Test
    void aProducerCreatesAJobWithTheServedKindsOffered() {
        login(PRODUCER);
        go("#/jobs");
        driver.findElement(By.id("new-job")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("new-job-served"), "deliver"));
        assertThat(driver.findElements(By.cssSelector("#new-job-kinds option[value='deliver']"))).hasSize(1);

        type(driver.findElement(By.id("new-job-kind")), "deliver");
        type(driver.findElement(By.id("new-job-queue")), "held");
        type(driver.findElement(By.id("new-job-priority")), "4");
        type(driver.findElement(By.id("new-job-payload")), "{\"address\": ");
        driver.findElement(By.id("new-job-create")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "not valid JSON"));

        type(driver.findElement(By.id("new-job-payload")), "{\"address\": \"7 Made Up Lane\"}");
        driver.findElement(By.id("new-job-create")).click();
        wait.until(d -> ((String) ((JavascriptExecutor) d).executeScript("return location.hash;")).matches("#/jobs/\\d+"));
        long id = Long.parseLong(((String) ((JavascriptExecutor) driver).executeScript("return location.hash;"))
                .substring("#/jobs/".length()));
        JobInfo job = docket.job(id).orElseThrow();
        assertThat(job.kind()).isEqualTo("deliver");
        assertThat(job.queue()).isEqualTo("held");
        assertThat(job.priority()).isEqualTo(4);
        assertThat(job.payload()).contains("7 Made Up Lane");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("article.job[data-id='" + id + "']")));
        assertThat(driver.findElements(By.id("job-edit"))).as("a producer does not edit").isEmpty();
    }

    @Test
    void anOperatorEditsAScheduledJobRunsItNowAndIsToldWhenItStartedMeanwhile() {
        long id = scheduledParcel("1 Old Road");
        login(OPERATOR);
        go("#/jobs/" + id);
        assertThat(driver.findElements(By.id("new-job"))).isEmpty();
        driver.findElement(By.id("job-edit")).click();
        WebElement payload = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("edit-payload")));
        assertThat(payload.getAttribute("value")).contains("1 Old Road");
        type(payload, "{\"address\": \"2 New Street\"}");
        type(driver.findElement(By.id("edit-priority")), "9");
        driver.findElement(By.id("edit-save")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "edited by operator, dashboard"));
        JobInfo edited = docket.job(id).orElseThrow();
        assertThat(edited.payload()).contains("2 New Street");
        assertThat(edited.priority()).isEqualTo(9);
        assertThat(edited.state()).isEqualTo(JobState.SCHEDULED);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".timeline"),
                "Edited (payload, priority) by operator, dashboard"));

        wait.until(ExpectedConditions.elementToBeClickable(By.id("job-run-now"))).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "is now ready"));
        assertThat(docket.job(id).orElseThrow().state()).isEqualTo(JobState.READY);

        // The edit form is open when a worker claims the job: saving is refused and nothing changes.
        wait.until(ExpectedConditions.elementToBeClickable(By.id("job-edit"))).click();
        WebElement priority = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("edit-priority")));
        db.execute("UPDATE " + schema + ".jobs SET state = 'running', attempt = 1, attempted_at = now(), "
                + "locked_by = 'w', lease_until = now() + interval '1 minute' WHERE id = " + id);
        type(priority, "1");
        driver.findElement(By.id("edit-save")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "has started"));
        assertThat(driver.findElement(By.id("flash")).getText()).startsWith("The edit was not saved");
        assertThat(docket.job(id).orElseThrow().priority()).isEqualTo(9);
    }

    @Test
    void viewersAndProducersGetNoEditOrRunNow() {
        long id = scheduledParcel("a");
        for (String token : List.of(VIEWER, PRODUCER)) {
            login(token);
            go("#/jobs/" + id);
            wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("article.job[data-id='" + id + "']")));
            assertThat(driver.findElements(By.id("job-edit"))).isEmpty();
            assertThat(driver.findElements(By.id("job-run-now"))).isEmpty();
        }
        login(VIEWER);
        go("#/jobs");
        assertThat(driver.findElements(By.id("new-job"))).as("a viewer does not enqueue").isEmpty();
    }
}
