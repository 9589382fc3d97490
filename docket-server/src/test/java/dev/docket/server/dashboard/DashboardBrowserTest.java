package dev.docket.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.docket.Docket;
import dev.docket.JobKind;
import dev.docket.JobOptions;
import dev.docket.JobState;
import dev.docket.PayloadKey;
import dev.docket.PayloadKeyProvider;
import dev.docket.PermanentJobFailure;
import dev.docket.RateLimit;
import dev.docket.RetryPolicy;
import dev.docket.Worker;
import dev.docket.WorkerInfo;
import dev.docket.WorkflowInfo;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard in a real headless Chromium against a real server and PostgreSQL: login, the
 * overview's counts, the job list's filters and pages, a job's error history, payload privacy per
 * role, cancel and dead-letter retry from the UI, and no Content-Security-Policy violation on any
 * page. One server, one worker and one browser serve the whole class; tests act on jobs of their
 * own kinds so that their order does not matter.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DashboardBrowserTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final String ADMIN = "admin-token-for-browser-tests";
    private static final String VIEWER = "viewer-token-for-browser-tests";
    private static final String SECRET = "secret-payload-marker-7f3a@example.com";
    /** What the secret job's handler records: markup, to see that it is shown as text. */
    private static final String RECEIPT = "<b>receipt-marker-51c9</b>";
    private static final int SENT_EMAILS = 55;
    /** The two widths every route is checked and shown at: a laptop, and a phone. */
    private static final int WIDE = 1280;
    private static final int NARROW = 420;
    /**
     * Where the README's screenshots go when asked for: {@code -Ddocket.screenshots=docs/screenshots} (or
     * {@code DOCKET_SCREENSHOTS}), a relative path being taken from the repository's root. Unset, the
     * screenshots go to target/screenshots only.
     */
    private static final String SCREENSHOTS = System.getProperty("docket.screenshots", System.getenv("DOCKET_SCREENSHOTS"));

    record Email(String to) {
    }

    record Item(int n) {
    }

    private final TestPostgres db = TestPostgres.get();
    private final String schema = "dash_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final CountDownLatch releaseBlocker = new CountDownLatch(1);
    private final Set<Long> syncFailedOnce = ConcurrentHashMap.newKeySet();

    private Docket docket;
    private Worker worker;
    private DocketServer server;
    private WebDriver driver;
    private WebDriverWait wait;
    private Path userDataDir;

    private long secretJob;
    private long flakyJob;
    private long newsletterJob;
    private long reportJob;
    private long syncJob;

    @BeforeAll
    void start() throws IOException {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "headless Chromium is not installed (apt-get install -y chromium chromium-driver): "
                        + "skipping the dashboard's browser tests");
        docket = Docket.builder(db.dataSource()).schema(schema)
                .retryPolicy("flaky", new RetryPolicy(3, Duration.ofMillis(50), Duration.ofMillis(100), 0))
                .build();
        docket.migrate();
        seed();
        TokenStore tokens = new TokenStore();
        tokens.add(Role.ADMIN, ADMIN);
        tokens.add(Role.VIEWER, VIEWER);
        server = DocketServer.start(docket, tokens, DocketServer.Config.defaults().withPort(0));
        driver = browser();
        wait = new WebDriverWait(driver, WAIT);
    }

    /** Jobs in every state: completed, dead (3 kinds), running, scheduled, and ready on a queue nobody serves. */
    private void seed() {
        for (int i = 0; i < SENT_EMAILS; i++) {
            docket.enqueue("send_email", new Email("user" + i + "@example.com"));
        }
        secretJob = docket.enqueue("welcome_email", new Email(SECRET));
        for (int i = 0; i < 3; i++) {
            docket.enqueue("charge_card", new Item(i));
        }
        flakyJob = docket.enqueue("flaky", new Item(1));
        syncJob = docket.enqueue("sync_crm", new Item(1));
        for (int i = 0; i < 3; i++) {
            docket.enqueue("replay_me", new Item(i));
        }
        docket.enqueue("resize_image", new Item(1), JobOptions.builder().tenant("acme").build());
        JobOptions later = JobOptions.builder().delay(Duration.ofHours(1)).build();
        reportJob = docket.enqueue("report", new Item(1), later);
        docket.enqueue("report", new Item(2), later);
        newsletterJob = docket.enqueue("newsletter", new Item(1), later);
        JobOptions unserved = JobOptions.builder().queue("reports").build();
        docket.enqueue("export", new Item(1), unserved);
        docket.enqueue("export", new Item(2), unserved);

        Set<Long> replayedOnce = ConcurrentHashMap.newKeySet();
        worker = docket.worker().queue("default", 8)
                .handler("send_email", Email.class, (email, ctx) -> { })
                .handler("welcome_email", Email.class, (email, ctx) -> ctx.recordOutput(Map.of("receipt", RECEIPT)))
                .handler("charge_card", Item.class, (item, ctx) -> {
                    throw new PermanentJobFailure("card declined for item " + item.n());
                })
                .handler("flaky", Item.class, (item, ctx) -> {
                    throw new IllegalStateException("upstream timed out on attempt " + ctx.attempt());
                })
                .handler("sync_crm", Item.class, (item, ctx) -> {
                    if (syncFailedOnce.add(ctx.jobId())) {
                        throw new PermanentJobFailure("CRM rejected the record");
                    }
                })
                .handler("replay_me", Item.class, (item, ctx) -> {
                    if (replayedOnce.add(ctx.jobId())) {
                        throw new PermanentJobFailure("quota exceeded");
                    }
                })
                .handler("resize_image", Item.class, (item, ctx) -> releaseBlocker.await())
                .handler("report", Item.class, (item, ctx) -> { })
                .handler("newsletter", Item.class, (item, ctx) -> { })
                .handler("wf_ok", Item.class, (item, ctx) -> { })
                .handler("wf_fail", Item.class, (item, ctx) -> {
                    throw new PermanentJobFailure("the step fails every time");
                })
                .start();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() ->
                count("jobs", "state = 'running'") == 1
                        && count("dead_jobs", "true") == 8
                        && count("job_history", "state = 'completed'") == SENT_EMAILS + 1);
    }

    private WebDriver browser() throws IOException {
        userDataDir = Files.createTempDirectory("docket-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=" + WIDE + ",1000", "--user-data-dir=" + userDataDir);
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    @AfterAll
    void stop() throws IOException {
        releaseBlocker.countDown();
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
            db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
        if (userDataDir != null) {
            try (var files = Files.walk(userDataDir)) {
                files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    @BeforeEach
    void signedOut() {
        driver.get(server.baseUrl() + "/");
        driver.manage().deleteAllCookies();
        driver.get(server.baseUrl() + "/");
        try {
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        } catch (TimeoutException e) {
            throw new AssertionError("the login page did not render; browser console: "
                    + driver.manage().logs().get(LogType.BROWSER).getAll(), e);
        }
    }

    /** Every test's pages, whatever it checked, must have run without a CSP violation. */
    @AfterEach
    void noContentSecurityPolicyViolations() {
        List<String> violations = cspMessages();
        assertThat(violations).as("Content-Security-Policy violations in the browser console").isEmpty();
    }

    @Test
    void wrongTokenShowsAnErrorAndStaysOnTheLoginPage() throws IOException {
        driver.findElement(By.id("token")).sendKeys("not-a-valid-token-at-all");
        driver.findElement(By.id("login-submit")).click();
        WebElement error = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("login-error")));
        assertThat(error.getText()).contains("not valid");
        assertThat(driver.findElement(By.id("login")).isDisplayed()).isTrue();
        assertThat(driver.findElement(By.id("topbar")).isDisplayed()).isFalse();
        assertThat(driver.manage().getCookieNamed("docket_session")).isNull();
        screenshot("login");
    }

    @Test
    void adminSeesTheOverviewWithCorrectCountsAndLiveUpdates() throws IOException {
        login(ADMIN);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("queues")));
        assertThat(driver.findElement(By.id("role")).getText()).isEqualToIgnoringCase("admin");
        assertThat(cell("default", "report", "scheduled")).isEqualTo("2");
        assertThat(cell("default", "resize_image", "running")).isEqualTo("1");
        assertThat(cell("default", "charge_card", "dead")).isEqualTo("3");
        assertThat(cell("default", "charge_card", "dead24h")).isEqualTo("+3");
        assertThat(cell("default", "flaky", "dead")).isEqualTo("1");
        assertThat(cell("reports", "export", "ready")).isEqualTo("2");
        assertThat(queueCell("reports", "ready")).isEqualTo("2");
        assertThat(queueCell("reports", "lag"))
                .matches("[0-9.,]+ (ms|s|min)");
        assertThat(text(By.cssSelector("#tenants tr[data-queue='default'][data-tenant='acme'] td.num"))).isEqualTo("1");
        assertThat(driver.findElements(By.cssSelector("#chart-throughput svg path.line"))).isNotEmpty();

        docket.enqueue("import", new Item(1), JobOptions.builder().queue("reports").build());
        wait.until(d -> !d.findElements(kindRow("reports", "import")).isEmpty());
        assertThat(cell("reports", "import", "ready")).isEqualTo("1");

        wait.until(d -> d.findElement(By.id("updated")).getText().startsWith("live"));
        screenshot("overview");
    }

    @Test
    void aRateLimitIsSetShownAndRemovedFromTheOverview() {
        login(ADMIN);
        By row = By.cssSelector("tr[data-scope='kind'][data-name='charge_card']");
        driver.findElement(By.id("rate-limit-name")).sendKeys("charge_card");
        driver.findElement(By.id("rate-limit-period")).sendKeys("1s");
        click(By.id("rate-limit-set"));
        wait.until(d -> text(By.id("flash")).contains("permits must be a whole number from 1 to 1000000 (the field is empty)"));
        driver.findElement(By.id("rate-limit-permits")).sendKeys("0");
        click(By.id("rate-limit-set"));
        wait.until(d -> text(By.id("flash")).contains("permits must be a whole number from 1 to 1000000, was 0"));
        driver.findElement(By.id("rate-limit-permits")).clear();
        driver.findElement(By.id("rate-limit-permits")).sendKeys("50");
        click(By.id("rate-limit-set"));
        wait.until(ExpectedConditions.presenceOfElementLocated(row));
        assertThat(text(By.cssSelector("tr[data-scope='kind'][data-name='charge_card'] td[data-col='limit']")))
                .isEqualTo("50 / 1s");
        assertThat(docket.admin().rateLimits()).singleElement()
                .satisfies(s -> assertThat(s.limit()).isEqualTo(RateLimit.ofKind("charge_card", 50, Duration.ofSeconds(1))));
        click(By.cssSelector("button[data-remove='kind:charge_card']"));
        wait.until(ExpectedConditions.invisibilityOfElementLocated(row));
        assertThat(docket.admin().rateLimits()).isEmpty();
    }

    @Test
    void pauseAndResumeAQueueFromTheOverview() {
        login(ADMIN);
        By reports = By.cssSelector("tr.queue-row[data-queue='reports']");
        click(By.cssSelector("button[data-pause='reports']"));
        wait.until(ExpectedConditions.attributeToBe(reports, "data-paused", "true"));
        assertThat(text(By.id("flash"))).contains("reports is paused");
        assertThat(docket.admin().queues()).anySatisfy(q -> {
            assertThat(q.queue()).isEqualTo("reports");
            assertThat(q.paused()).isTrue();
        });
        click(By.cssSelector("button[data-resume='reports']"));
        wait.until(ExpectedConditions.attributeToBe(reports, "data-paused", "false"));
        assertThat(docket.admin().queues()).noneSatisfy(q -> assertThat(q.paused()).isTrue());
    }

    @Test
    void jobListFiltersByStateAndPages() {
        login(ADMIN);
        go("#/jobs");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("jobs")));
        new Select(driver.findElement(By.id("filter-state"))).selectByValue("completed");
        wait.until(ExpectedConditions.urlContains("state=completed"));
        awaitLoaded();
        driver.findElement(By.id("filter-kind")).sendKeys("send_email");
        driver.findElement(By.id("filter-apply")).click();
        wait.until(ExpectedConditions.urlContains("kind=send_email"));
        awaitLoaded();
        List<Long> first = waitForRows(50);
        assertThat(driver.findElements(By.cssSelector("#jobs tbody tr")))
                .allSatisfy(r -> assertThat(r.getAttribute("data-state")).isEqualTo("completed"));
        assertThat(first).isSortedAccordingTo((a, b) -> Long.compare(b, a));

        driver.findElement(By.id("page-next")).click();
        wait.until(ExpectedConditions.urlContains("after="));
        awaitLoaded();
        List<Long> second = waitForRows(SENT_EMAILS - 50);
        assertThat(second).allSatisfy(id -> assertThat(id).isLessThan(first.getLast()));
        assertThat(driver.findElement(By.id("page-next")).isEnabled()).isFalse();
        assertThat(driver.findElements(By.cssSelector("#jobs tbody td a.kind")))
                .allSatisfy(a -> assertThat(a.getText()).isEqualTo("send_email"));

        driver.findElement(By.id("page-prev")).click();
        wait.until(ExpectedConditions.not(ExpectedConditions.urlContains("after=")));
        awaitLoaded();
        assertThat(waitForRows(50)).isEqualTo(first);
    }

    @Test
    void jobDetailShowsItsErrorHistory() {
        login(ADMIN);
        go("#/jobs/" + flakyJob);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("errors")));
        List<WebElement> rows = driver.findElements(By.cssSelector("#errors tbody tr"));
        assertThat(rows).hasSize(3);
        for (WebElement row : rows) {
            String attempt = row.getAttribute("data-attempt");
            assertThat(row.findElement(By.cssSelector("pre.error-text")).getText())
                    .contains("upstream timed out on attempt " + attempt);
            assertThat(row.findElement(By.cssSelector("time")).getAttribute("title")).matches("\\d{4}-\\d\\d-\\d\\dT.*");
            assertThat(row.findElements(By.tagName("td")).get(2).getText()).isEqualTo(worker.workerId());
        }
        assertThat(driver.findElement(By.cssSelector("h1 .badge")).getText()).isEqualTo("dead");
        assertThat(driver.findElement(By.id("job-retry")).isDisplayed()).isTrue();
    }

    @Test
    void adminRevealsThePayloadOnlyOnRequest() {
        login(ADMIN);
        go("#/jobs/" + secretJob);
        WebElement show = wait.until(ExpectedConditions.elementToBeClickable(By.id("show-payload")));
        assertThat(driver.getPageSource()).doesNotContain(SECRET);
        show.click();
        WebElement payload = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload")));
        assertThat(payload.getText()).contains(SECRET);
        driver.findElement(By.id("show-payload")).click();
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("payload")));

        assertThat(driver.getPageSource()).as("the output too waits for a request").doesNotContain("receipt-marker-51c9");
        driver.findElement(By.id("show-output")).click();
        WebElement output = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("output")));
        assertThat(output.getText()).as("escaped: the markup is text").contains(RECEIPT);
        assertThat(output.findElements(By.tagName("b"))).isEmpty();
    }

    /**
     * A job whose payload is encrypted at rest, on a server without the key: the job page says "encrypted" and
     * shows neither the payload nor the ciphertext, to the admin as to the viewer. Its row is removed afterwards so
     * that the other tests' counts hold.
     */
    @Test
    void anEncryptedPayloadIsShownAsEncryptedAndNeverAsCiphertext() {
        String secret = "vault-marker-20c4@example.com";
        long id;
        try (Docket keyed = Docket.builder(db.dataSource()).schema(schema)
                .payloadKeys(PayloadKeyProvider.of(List.of(PayloadKey.of("k1", new byte[32])))).build()) {
            id = keyed.enqueue(JobKind.of("vault", Email.class).encrypted().build(), new Email(secret),
                    JobOptions.builder().queue("vault").build()).id();
        }
        String ciphertext = text("SELECT payload -> 'docket:encrypted' ->> 'ct' FROM " + schema + ".jobs WHERE id = " + id);
        try {
            login(ADMIN);
            go("#/jobs/" + id);
            WebElement note = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload-encrypted")));
            assertThat(note.getText()).contains("Encrypted").contains("no key");
            assertThat(driver.findElements(By.id("show-payload"))).isEmpty();
            assertThat(driver.getPageSource()).doesNotContain(secret).doesNotContain("docket:encrypted")
                    .doesNotContain(ciphertext.substring(0, 16));

            signedOut();
            login(VIEWER);
            go("#/jobs/" + id);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload-encrypted")));
            assertThat(driver.getPageSource()).doesNotContain(secret).doesNotContain(ciphertext.substring(0, 16));
        } finally {
            db.execute("DELETE FROM " + schema + ".jobs WHERE id = " + id);
        }
    }

    private String text(String sql) {
        try (var c = db.dataSource().getConnection(); var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void viewerGetsNoPayloadAndNoActions() {
        login(VIEWER);
        go("#/jobs/" + secretJob);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("job-payload")));
        assertThat(driver.findElements(By.id("show-payload"))).isEmpty();
        assertThat(driver.getPageSource()).doesNotContain(SECRET).doesNotContain("example.com");
        assertThat(driver.findElement(By.id("job-payload")).getText()).contains("hidden from the viewer role");
        assertThat(driver.findElements(By.id("show-output"))).isEmpty();
        assertThat(driver.getPageSource()).doesNotContain("receipt-marker-51c9");
        assertThat(driver.findElement(By.id("job-output")).getText()).contains("hidden from the viewer role");

        go("#/jobs/" + reportJob);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("article.job[data-id='" + reportJob + "']")));
        assertThat(driver.findElements(By.id("job-cancel"))).isEmpty();
        assertThat(driver.findElements(By.id("job-retry"))).isEmpty();
        go("#/dlq");
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("dead-jobs")));
        assertThat(driver.findElements(By.cssSelector("button[data-retry]"))).isEmpty();
        assertThat(driver.findElements(By.id("replay"))).isEmpty();
    }

    /**
     * A job behind a halted sequence shows its key and why it waits; discarding the dead job from its
     * page lets it run. Its rows are removed afterwards so that the other tests' counts hold.
     */
    @Test
    void aHaltedSequenceIsShownAndResumesWhenItsDeadJobIsDiscarded() {
        db.execute("INSERT INTO " + schema + ".dead_jobs (id, queue, kind, payload, payload_version, priority, run_at, "
                + "attempt, max_attempts, metadata, errors, created_at, reason, sequence_key, sequence_halt) VALUES "
                + "(990001, 'ordered', 'sync_order', '{}', 1, 0, now(), 1, 1, '{}', '[]', now(), 'permanent failure', "
                + "'order-7', true)");
        long waiting = docket.enqueue("sync_order", new Item(2),
                JobOptions.builder().queue("ordered").sequenceKey("order-7").build());
        try {
            login(ADMIN);
            go("#/jobs/" + waiting);
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".explain-line"),
                    "Sequence order-7 is halted by dead job 990001"));
            assertThat(driver.findElement(By.cssSelector("h1 .badge")).getText()).isEqualTo("waiting");
            assertThat(driver.findElement(By.cssSelector("dl.facts")).getText()).contains("Sequence").contains("order-7");

            go("#/jobs/990001");
            wait.until(ExpectedConditions.elementToBeClickable(By.id("job-discard"))).click();
            wait.until(ExpectedConditions.elementToBeClickable(By.id("confirm-yes"))).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "Discarded"));
            assertThat(docket.job(990001)).isEmpty();
            assertThat(docket.job(waiting).orElseThrow().state()).isEqualTo(JobState.READY);
        } finally {
            db.execute("DELETE FROM " + schema + ".jobs WHERE id = " + waiting);
            db.execute("DELETE FROM " + schema + ".dead_jobs WHERE id = 990001");
        }
    }

    /**
     * A job waiting for an approval shows what it waits for; an admin sends the signal with a JSON payload from
     * its page (a malformed payload is refused in the page), the job runs, and the page shows the signal with who
     * sent it. A viewer sees the wait but no button. A finished job shows its progress bar and its log lines per
     * attempt, as text. The rows are removed afterwards so that the other tests' counts hold.
     */
    @Test
    void anApprovalIsSentFromTheJobPageAndProgressAndLogsAreShownPerAttempt() {
        long approval = docket.enqueue("report", new Item(7), JobOptions.builder()
                .awaitSignal("approved", Duration.ofDays(2), dev.docket.SignalTimeout.CANCEL).build());
        long imported = docket.enqueue("import_rows", new Item(8), JobOptions.builder().queue("imports").maxAttempts(2).build());
        docket.worker().queue("imports", 1).handler("import_rows", Item.class, (item, ctx) -> {
            ctx.progress(0.4, "read 400 of 1000 rows");
            ctx.log("attempt " + ctx.attempt() + ": <b>not markup</b>");
            if (ctx.attempt() == 1) {
                throw new IllegalStateException("the file moved");
            }
        }).runJobsDueWithin(Duration.ofHours(1));
        docket.worker().queue("imports", 1).handler("import_rows", Item.class, (item, ctx) -> {
            ctx.progress(1, "imported 1000 rows");
            ctx.log("attempt " + ctx.attempt() + ": <b>not markup</b>");
        }).runJobsDueWithin(Duration.ofHours(1));
        try {
            login(VIEWER);
            go("#/jobs/" + approval);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("job-wait")));
            assertThat(driver.findElement(By.id("wait-signal")).getText()).isEqualTo("approved");
            assertThat(driver.findElement(By.id("job-wait")).getText()).contains("is cancelled")
                    .contains("may not send signals");
            assertThat(driver.findElements(By.id("send-signal"))).isEmpty();
            driver.findElement(By.id("logout")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));

            login(ADMIN);
            fitsNarrow("#/jobs/" + approval);
            go("#/jobs/" + approval);
            WebElement payload = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("signal-payload")));
            documentationScreenshot("job-wait");
            payload.sendKeys("{\"note\": ");
            driver.findElement(By.id("send-signal")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "not valid JSON"));
            assertThat(docket.job(approval).orElseThrow().state()).isEqualTo(JobState.WAITING);
            payload.clear();
            payload.sendKeys("{\"note\": \"approved by phone\"}");
            driver.findElement(By.id("send-signal")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "ended the wait"));
            Awaitility.await().atMost(WAIT).until(() -> docket.job(approval).orElseThrow().state() == JobState.COMPLETED);
            assertThat(docket.job(approval).orElseThrow().signals()).singleElement().satisfies(sent -> {
                assertThat(sent.sentBy()).isEqualTo("admin, dashboard");
                assertThat(sent.payload()).contains("approved by phone");
            });
            go("#/jobs/" + approval);
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 .badge"), "completed"));
            assertThat(driver.findElements(By.id("job-wait"))).isEmpty();
            assertThat(driver.findElement(By.id("signals")).getText()).contains("approved").contains("admin, dashboard")
                    .contains("ended a wait").doesNotContain("approved by phone");
            driver.findElement(By.id("show-signal-payloads")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("signals"), "approved by phone"));
            assertThat(driver.findElement(By.cssSelector(".timeline")).getText()).contains("Signal “approved” ended a wait");

            go("#/jobs/" + imported);
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("job-progress")));
            assertThat(driver.findElement(By.id("progress-bar")).getAttribute("value")).isEqualTo("1");
            assertThat(driver.findElement(By.id("progress-percent")).getText()).isEqualTo("100 %");
            assertThat(driver.findElement(By.id("progress-message")).getText()).isEqualTo("imported 1000 rows");
            List<WebElement> attempts = driver.findElements(By.cssSelector("#job-logs .attempt-log"));
            assertThat(attempts).extracting(a -> a.getAttribute("data-attempt")).containsExactly("2", "1");
            assertThat(attempts.get(1).getText()).contains("attempt 1: <b>not markup</b>");
            assertThat(driver.findElements(By.cssSelector("#job-logs b"))).as("escaped: the markup is text").isEmpty();
            documentationScreenshot("job-waits");
            fitsNarrow("#/jobs/" + imported);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            db.execute("DELETE FROM " + schema + ".jobs WHERE id IN (" + approval + ", " + imported + ")");
            db.execute("DELETE FROM " + schema + ".job_history WHERE id IN (" + approval + ", " + imported + ")");
        }
    }

    @Test
    void cancelFromTheJobPageCancelsAScheduledJob() {
        login(ADMIN);
        go("#/jobs/" + newsletterJob);
        wait.until(ExpectedConditions.elementToBeClickable(By.id("job-cancel"))).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("confirm-yes"))).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "cancelled"));
        assertThat(docket.job(newsletterJob).orElseThrow().state()).isEqualTo(JobState.CANCELLED);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("h1 .badge"), "cancelled"));
        assertThat(driver.findElements(By.id("job-cancel"))).isEmpty();
        @SuppressWarnings("unchecked")
        List<String> timeline = (List<String>) ((JavascriptExecutor) driver).executeScript(
                "return [...document.querySelectorAll('.timeline li')].map(li => li.textContent);");
        assertThat(timeline).as("a finished job's timeline ends at its finish: no due time after it")
                .hasSize(2).satisfies(t -> {
                    assertThat(t.get(0)).startsWith("Enqueued");
                    assertThat(t.get(1)).startsWith("Cancelled");
                });
    }

    @Test
    void retryOfADeadJobFromTheDeadLetterPage() {
        login(ADMIN);
        go("#/dlq?kind=sync_crm");
        By retry = By.cssSelector("button[data-retry='" + syncJob + "']");
        wait.until(ExpectedConditions.elementToBeClickable(retry)).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "back to ready"));
        assertThat(docket.job(syncJob).orElseThrow().state()).isNotEqualTo(JobState.DEAD);
        Awaitility.await().atMost(WAIT).until(() -> docket.job(syncJob).orElseThrow().state() == JobState.COMPLETED);
        wait.until(ExpectedConditions.invisibilityOfElementLocated(retry));
    }

    @Test
    void replayMatchingRunsAtARateAndShowsProgress() {
        login(ADMIN);
        go("#/dlq?kind=replay_me");
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#dead-jobs tbody tr"), 3));
        WebElement rate = driver.findElement(By.id("replay-rate"));
        rate.clear();
        rate.sendKeys("2");
        driver.findElement(By.id("replay-start")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("confirm-yes"))).click();
        wait.until(ExpectedConditions.attributeToBe(By.id("replay-text"), "data-state", "done"));
        assertThat(driver.findElement(By.id("replay-text")).getText()).startsWith("3 of 3 replayed");
        Awaitility.await().atMost(WAIT).until(() -> count("job_history", "kind = 'replay_me'") == 3);
    }

    /** One broken handler is one chip; its signature is readable in full; a merge patch repairs the group. */
    @Test
    void deadLettersGroupBySignatureAndAGroupIsPatched() throws IOException {
        login(ADMIN);
        go("#/dlq");
        String signature = "PermanentJobFailure: card declined for item <n>";
        By chip = By.cssSelector("#dlq-error-groups a.chip[data-signature='" + signature + "']");
        WebElement found = wait.until(ExpectedConditions.presenceOfElementLocated(chip));
        assertThat(found.findElement(By.className("chip-count")).getText()).isEqualTo("3");
        assertThat(found.getAttribute("title")).contains("charge_card: " + signature)
                .contains("e.g. dev.docket.PermanentJobFailure: card declined for item ");
        click(chip);
        wait.until(ExpectedConditions.textToBe(By.id("dlq-signature"), signature));
        wait.until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("#dead-jobs tbody tr"), 3));
        screenshot("dead-letter-group");

        WebElement patch = driver.findElement(By.id("patch-text"));
        patch.sendKeys("{\"coupon\": \"SAVE10\"");
        driver.findElement(By.id("patch-dry-run")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "not valid JSON"));
        patch.sendKeys("}");
        driver.findElement(By.id("patch-dry-run")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "would change 3 of 3"));
        assertThat(count("dead_jobs", "kind = 'charge_card' AND payload ? 'coupon'")).isZero();
        driver.findElement(By.id("patch-apply")).click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("confirm-yes"))).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "Patched 3 of 3"));
        assertThat(count("dead_jobs", "kind = 'charge_card' AND payload ->> 'coupon' = 'SAVE10'"
                + " AND metadata -> 'docket.repairs' -> -1 ->> 'by' = 'admin, dashboard'")).isEqualTo(3);
    }

    /** An admin edits a dead job's payload on its page; the repair shows in the timeline; a viewer has no editor. */
    @Test
    void aDeadJobsPayloadIsEditedFromItsPage() {
        long id = firstId("dead_jobs", "kind = 'charge_card'");
        login(ADMIN);
        go("#/jobs/" + id);
        wait.until(ExpectedConditions.elementToBeClickable(By.id("edit-payload"))).click();
        WebElement text = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload-text")));
        assertThat(text.getAttribute("value")).contains("\"n\"");
        text.clear();
        text.sendKeys("{\"n\": ");
        driver.findElement(By.id("save-payload")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "not valid JSON"));
        text.clear();
        text.sendKeys("{\"s\": \"\\ud800\"}");
        driver.findElement(By.id("save-payload")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "unpaired UTF-16 surrogate"));
        text.clear();
        text.sendKeys("{\"n\": 99}");
        driver.findElement(By.id("save-payload")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("flash"), "repaired by admin, dashboard"));
        assertThat(count("dead_jobs", "id = " + id + " AND payload = '{\"n\": 99}'")).isEqualTo(1);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector(".timeline"),
                "Payload repaired (payload replaced) by admin, dashboard"));

        driver.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        login(VIEWER);
        go("#/jobs/" + id);
        awaitLoaded();
        assertThat(driver.findElements(By.id("edit-payload"))).isEmpty();
    }

    @Test
    void anUnknownRouteSaysNotFound() {
        login(ADMIN);
        go("#/nonsense");
        wait.until(ExpectedConditions.textToBe(By.id("not-found"), "Not found"));
        assertThat(driver.findElement(By.id("main")).getText()).contains("#/nonsense");
        assertThat(driver.findElements(By.cssSelector("#topbar [aria-current='page']"))).isEmpty();
        click(By.id("not-found-home"));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("queues")));
    }

    /** The overview's pickup card names the kind it shows, and shows what that kind's row shows. */
    @Test
    void thePickupCardNamesItsKindAndAgreesWithTheTable() {
        login(ADMIN);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("queues")));
        assertThat(text(By.cssSelector("#metric-pickup .metric-label"))).isEqualToIgnoringCase("Pickup p50 · slowest kind");
        // One snapshot of the page: the overview re-renders every few seconds.
        @SuppressWarnings("unchecked")
        List<String> seen = (List<String>) ((JavascriptExecutor) driver).executeScript("""
                const c = document.getElementById('metric-pickup');
                const row = c.dataset.kind === undefined ? null : document.querySelector(
                    `tr.kind-row[data-queue="${c.dataset.queue}"][data-kind="${c.dataset.kind}"] td[data-col="p50"]`);
                return [c.querySelector('.metric-value').textContent, c.querySelector('.metric-detail').textContent,
                        c.dataset.kind || '', row ? row.textContent : ''];""");
        if (seen.get(2).isEmpty()) {
            assertThat(seen.get(0)).isEqualTo("—");
            assertThat(seen.get(1)).isEqualTo("no pickups in the last minute");
        } else {
            assertThat(seen.get(1)).startsWith(seen.get(2) + " on ");
            assertThat(seen.get(3)).isEqualTo(seen.get(0));
        }
    }

    /** At 420 px the navigation wraps below the brand instead of pushing "Log out" off the screen. */
    @Test
    void aNarrowScreenKeepsTheNavigationAndLogOutOnScreen() throws IOException {
        login(ADMIN);
        Dimension before = driver.manage().window().getSize();
        try {
            driver.manage().window().setSize(new Dimension(420, 900));
            JavascriptExecutor js = (JavascriptExecutor) driver;
            long width = (Long) js.executeScript("return document.documentElement.clientWidth");
            assertThat(width).isLessThanOrEqualTo(420);
            go("#/dlq");
            awaitLoaded();
            assertThat((Boolean) js.executeScript("const t = document.getElementById('topbar');"
                    + "return t.scrollWidth <= t.clientWidth;")).as("the top bar does not overflow").isTrue();
            for (WebElement link : driver.findElements(By.cssSelector("#topbar nav a"))) {
                assertThat((Boolean) js.executeScript("const r = arguments[0].getBoundingClientRect();"
                        + "return r.left >= 0 && r.right <= document.documentElement.clientWidth;", link))
                        .as("%s is on screen", link.getText()).isTrue();
            }
            WebElement logout = driver.findElement(By.id("logout"));
            assertThat((Boolean) js.executeScript("const r = arguments[0].getBoundingClientRect();"
                    + "return r.left >= 0 && r.right <= document.documentElement.clientWidth && r.top >= 0;", logout))
                    .as("Log out is on screen").isTrue();
            screenshot("narrow");
            click(By.cssSelector("#topbar nav a[data-nav='jobs']"));
            wait.until(ExpectedConditions.attributeToBe(By.cssSelector("#topbar nav a[data-nav='jobs']"), "aria-current", "page"));
            logout.click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        } finally {
            driver.manage().window().setSize(before);
        }
    }

    @Test
    void aPostWithoutTheCsrfTokenIsRefused() {
        login(ADMIN);
        Object status = ((JavascriptExecutor) driver).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch('/api/jobs/' + arguments[0] + '/cancel', {method: 'POST', credentials: 'same-origin'})
                    .then(r => done(r.status), e => done(String(e)));""", reportJob);
        assertThat(status).isEqualTo(403L);
        assertThat(docket.job(reportJob).orElseThrow().state()).isEqualTo(JobState.SCHEDULED);
    }

    @Test
    void everyPageRendersWithoutCspViolations() throws IOException {
        login(ADMIN);
        for (String page : List.of("#/overview", "#/jobs", "#/jobs?state=dead", "#/jobs/" + flakyJob, "#/dlq", "#/doctor",
                "#/workflows")) {
            go(page);
            awaitLoaded();
            switch (page) {
                case "#/jobs" -> screenshot("jobs");
                case "#/dlq" -> screenshot("dead-letters");
                default -> {
                    if (page.startsWith("#/jobs/")) {
                        screenshot("job");
                    }
                }
            }
        }
        go("#/jobs/" + secretJob);
        wait.until(ExpectedConditions.elementToBeClickable(By.id("show-payload"))).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("payload")));
        driver.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        assertThat(cspMessages()).isEmpty();
    }

    /**
     * The Doctor page: the seeded queue nobody serves is a problem with its fix, the kind is listed among
     * the unserved, the live worker is in the workers table, and a passing check is listed as passed.
     */
    @Test
    void doctorPageNamesTheUnservedQueueAndListsTheWorkers() throws IOException {
        login(VIEWER);
        go("#/doctor");
        awaitLoaded();
        assertThat(driver.findElement(By.id("doctor-status")).getAttribute("data-status")).isEqualTo("problem");
        WebElement unserved = driver.findElement(By.cssSelector(
                "#findings article[data-check='unserved_kinds'][data-severity='problem']"));
        assertThat(unserved.findElement(By.cssSelector(".subject")).getText()).isEqualTo("kind export on queue reports");
        assertThat(unserved.findElement(By.cssSelector(".cause")).getText()).isEqualTo("no live worker serves the queue");
        assertThat(unserved.findElement(By.cssSelector("pre.fix")).getText()).contains("--queue reports");
        assertThat(text(By.cssSelector("#unserved li[data-subject='kind export on queue reports']")))
                .contains("2 ready and 0 scheduled");
        WebElement row = driver.findElement(By.cssSelector("#workers tr[data-worker='" + worker.workerId() + "']"));
        assertThat(row.getAttribute("data-live")).isEqualTo("true");
        assertThat(row.getText()).contains("default=8").contains("send_email");
        assertThat(driver.findElements(By.cssSelector("#passed li[data-check='settings_drift']"))).hasSize(1);
        assertThat(driver.findElement(By.cssSelector("[data-nav='doctor']")).getAttribute("aria-current")).isEqualTo("page");
        screenshot("doctor");
    }

    /**
     * The Workers page shows each worker's line from its heartbeat row: host, pid, queues and slots, the
     * handler blocked on resize_image running, the attempts of the last minute, the heartbeat's age by the
     * database clock; and a worker whose heartbeats stopped 59 minutes ago as stopped. It refreshes by
     * itself: a second worker, its one slot taken, shows as busy without a reload.
     */
    @Test
    void theWorkersPageShowsEachWorkersLineFromItsHeartbeat() throws IOException {
        db.execute("INSERT INTO " + schema + ".workers (id, host, pid, queues, kinds, version, connections_needed, listen, "
                + "listening, heartbeat_interval_ms, started_at, heartbeat_at, finished_last_minute) VALUES ('gone-host/77', "
                + "'gone-host', 77, '{\"reports\": 3}', '{}', '0.9.0', 9, true, false, 1000, now() - interval '2 hours', "
                + "now() - interval '59 minutes', 12)");
        CountDownLatch secondBlocker = new CountDownLatch(1);
        Worker second = null;
        try {
            login(VIEWER);
            go("#/workers");
            awaitLoaded();
            assertThat(driver.findElement(By.cssSelector("[data-nav='workers']")).getAttribute("aria-current")).isEqualTo("page");
            WorkerInfo info = docket.admin().workers().stream().filter(w -> w.id().equals(worker.workerId())).findFirst()
                    .orElseThrow();
            String live = "#worker-list tr[data-worker='" + worker.workerId() + "'] ";
            assertThat(driver.findElement(By.cssSelector(live.strip())).getAttribute("data-live")).isEqualTo("true");
            assertThat(text(By.cssSelector(live + "td[data-col='host']"))).isEqualTo(info.host());
            assertThat(text(By.cssSelector(live + "td[data-col='pid']"))).isEqualTo(Long.toString(ProcessHandle.current().pid()));
            assertThat(text(By.cssSelector(live + "td[data-col='queues']"))).isEqualTo("default=8");
            assertThat(text(By.cssSelector(live + "td[data-col='running']"))).isEqualTo("1 / 8");
            assertThat(text(By.cssSelector(live + "td[data-col='finished']"))).matches("[0-9,]+");
            assertThat(text(By.cssSelector(live + "td[data-col='heartbeat']"))).matches("[0-9.,]+ (ms|s) ago");
            assertThat(text(By.cssSelector(live + "td[data-col='status']"))).isIn("working", "idle");
            String gone = "#worker-list tr[data-worker='gone-host/77'] ";
            assertThat(driver.findElement(By.cssSelector(gone.strip())).getAttribute("data-live")).isEqualTo("false");
            assertThat(text(By.cssSelector(gone + "td[data-col='status']"))).isEqualTo("stopped");
            assertThat(text(By.cssSelector(gone + "td[data-col='heartbeat']"))).isEqualTo("59 min ago");
            assertThat(text(By.cssSelector(gone + "td[data-col='finished']"))).isEqualTo("12");
            assertThat(text(By.cssSelector("#worker-metric-live [data-value='live']"))).isEqualTo("1");
            documentationScreenshot("workers");

            docket.enqueue("hold", new Item(1), JobOptions.builder().queue("held").build());
            second = docket.worker().queue("held", 1).workerId("second-worker").lease(Duration.ofSeconds(3))
                    .maintenance(false).handler("hold", Item.class, (item, ctx) -> secondBlocker.await()).start();
            String added = "#worker-list tr[data-worker='second-worker'] ";
            wait.until(d -> !d.findElements(By.cssSelector(added + "td[data-col='running']")).isEmpty()
                    && text(By.cssSelector(added + "td[data-col='running']")).equals("1 / 1"));
            assertThat(text(By.cssSelector(added + "td[data-col='status']"))).isEqualTo("busy");
            assertThat(text(By.cssSelector("#worker-metric-live [data-value='live']"))).isEqualTo("2");
        } finally {
            secondBlocker.countDown();
            if (second != null) {
                second.close();
            }
            db.execute("DELETE FROM " + schema + ".workers WHERE id = 'gone-host/77'");
        }
    }

    /** The job page says why a job is not running, computed by the server. */
    @Test
    void jobPageSaysWhyTheJobIsNotRunning() {
        login(ADMIN);
        long export = docket.admin().jobs(dev.docket.JobQuery.all().withKind("export")).getFirst().id();
        go("#/jobs/" + export);
        WebElement line = wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#job-explain .explain-line")));
        assertThat(line.getAttribute("data-code")).isEqualTo("no_worker_for_queue");
        assertThat(line.getText()).isEqualTo("Why it is not running: No live worker serves queue reports.");

        go("#/jobs/" + reportJob);
        wait.until(ExpectedConditions.attributeToBe(By.cssSelector("#job-explain .explain-line"), "data-code", "scheduled"));
        assertThat(text(By.cssSelector("#job-explain .explain-line"))).startsWith("Why it is not running: Scheduled for ");
    }

    /**
     * The workflow page draws the graph: one box per step coloured by its job's state, an arrow per edge;
     * cancelling its first step (which cancels what waits for it) shows every step cancelled.
     */
    @Test
    void workflowPageDrawsTheGraphWithEachStepsState() throws IOException {
        // A queue of its own that no worker serves, so that the steps stay as enqueued; cancelled at the end.
        JobOptions unserved = JobOptions.builder().queue("wf_demo").build();
        long id = docket.enqueueWorkflow(dev.docket.Workflow.builder("nightly <b>export</b>")
                .step("dump", "wf_dump", new Item(1), unserved)
                .step("compress", "wf_compress", new Item(2), unserved, "dump")
                .step("checksum", "wf_checksum", new Item(3), unserved, "dump")
                .step("upload", "wf_upload", new Item(4), unserved, "compress", "checksum")
                .build()).id();
        try {
            showWorkflow(id);
        } finally {
            docket.admin().cancelWorkflow(id);
        }
    }

    private void showWorkflow(long id) throws IOException {
        login(VIEWER);
        go("#/jobs/" + docket.admin().workflow(id).orElseThrow().steps().getLast().jobId());
        wait.until(ExpectedConditions.elementToBeClickable(By.id("job-workflow"))).click();
        awaitLoaded();

        assertThat(text(By.id("workflow-name"))).as("names are text, never markup").isEqualTo("nightly <b>export</b>");
        assertThat(text(By.id("workflow-status"))).isEqualTo("running");
        assertThat(driver.findElements(By.cssSelector("#workflow-graph g.wf-node"))).hasSize(4);
        assertThat(driver.findElements(By.cssSelector("#workflow-graph line.wf-edge"))).hasSize(4);
        assertThat(driver.findElement(By.cssSelector("g.wf-node[data-step='dump']")).getAttribute("data-state"))
                .isEqualTo("ready");
        assertThat(driver.findElement(By.cssSelector("g.wf-node[data-step='upload']")).getAttribute("data-state"))
                .isEqualTo("waiting");
        assertThat(driver.findElements(By.id("workflow-cancel"))).as("a viewer gets no actions").isEmpty();
        screenshot("workflow");

        docket.cancel(docket.admin().workflow(id).orElseThrow().steps().getFirst().jobId());
        wait.until(d -> d.findElements(By.cssSelector("#workflow-graph g.wf-node[data-state='cancelled']")).size() == 4);
        assertThat(text(By.id("workflow-status"))).isEqualTo("cancelled");
        driver.findElement(By.id("logout")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        assertThat(cspMessages()).isEmpty();
    }

    /** A finished workflow offers no action; a failed one offers Retry only, and says what it retried. */
    @Test
    void aWorkflowOffersOnlyTheActionsItsStateAllowsAndSaysWhatTheyDid() {
        long done = docket.enqueueWorkflow(dev.docket.Workflow.builder("all good")
                .step("only", "wf_ok", new Item(1), JobOptions.defaults()).build()).id();
        long failed = docket.enqueueWorkflow(dev.docket.Workflow.builder("doomed")
                .step("charge", "wf_fail", new Item(1), JobOptions.defaults()).build()).id();
        try {
            Awaitility.await().atMost(WAIT).until(() -> status(done) == WorkflowInfo.Status.COMPLETED
                    && status(failed) == WorkflowInfo.Status.FAILED);
            login(ADMIN);
            go("#/workflows/" + done);
            awaitLoaded();
            assertThat(text(By.id("workflow-status"))).isEqualTo("completed");
            assertThat(driver.findElements(By.id("workflow-retry"))).as("nothing failed").isEmpty();
            assertThat(driver.findElements(By.id("workflow-cancel"))).as("nothing unfinished").isEmpty();

            go("#/workflows/" + failed);
            awaitLoaded();
            assertThat(text(By.id("workflow-status"))).isEqualTo("failed");
            assertThat(driver.findElements(By.id("workflow-cancel"))).as("nothing unfinished").isEmpty();
            click(By.id("workflow-retry"));
            wait.until(ExpectedConditions.textToBe(By.id("flash"), "Retried 1 dead step."));
        } finally {
            Awaitility.await().atMost(WAIT).until(() -> status(failed) != WorkflowInfo.Status.RUNNING);
            db.execute("DELETE FROM " + schema + ".dead_jobs WHERE kind = 'wf_fail'");
        }
    }

    /** Cancel shows while steps are unfinished and says how many it cancelled; then Retry takes its place. */
    @Test
    void cancellingAWorkflowSaysHowManyStepsItCancelledAndRetryBringsThemBack() {
        JobOptions unserved = JobOptions.builder().queue("wf_idle").build();
        long id = docket.enqueueWorkflow(dev.docket.Workflow.builder("idle")
                .step("first", "wf_first", new Item(1), unserved)
                .step("second", "wf_second", new Item(2), unserved, "first")
                .step("third", "wf_third", new Item(3), unserved, "second")
                .build()).id();
        try {
            login(ADMIN);
            go("#/workflows/" + id);
            awaitLoaded();
            assertThat(driver.findElements(By.id("workflow-retry"))).as("nothing dead or cancelled").isEmpty();
            click(By.id("workflow-cancel"));
            wait.until(ExpectedConditions.textToBe(By.id("flash"), "Cancelled 3 steps."));
            wait.until(ExpectedConditions.textToBe(By.id("workflow-status"), "cancelled"));
            assertThat(driver.findElements(By.id("workflow-cancel"))).isEmpty();
            click(By.id("workflow-retry"));
            wait.until(ExpectedConditions.textToBe(By.id("flash"), "Retried 3 cancelled steps."));
            wait.until(ExpectedConditions.textToBe(By.id("workflow-status"), "running"));
            assertThat(driver.findElements(By.id("workflow-retry"))).isEmpty();
        } finally {
            docket.admin().cancelWorkflow(id);
        }
    }

    private WorkflowInfo.Status status(long workflow) {
        return docket.admin().workflow(workflow).orElseThrow().status();
    }

    /**
     * Every route of the dashboard (the router's own list, each :id given a job or workflow of this class),
     * the login page and an unknown route, at 1280 and at 420 px: no page is wider than the screen, every
     * placeholder shows whole, every checkbox sits by its label. The README's screenshots are taken here.
     */
    @Test
    void everyRouteFitsTheScreenAt1280And420Px() throws IOException {
        long workflow = docket.enqueueWorkflow(dev.docket.Workflow.builder("nightly export")
                .step("dump_orders", "wf_dump", new Item(1), JobOptions.builder().queue("wf_fit").build())
                .step("compress", "wf_compress", new Item(2), JobOptions.builder().queue("wf_fit").build(), "dump_orders")
                .step("checksum", "wf_checksum", new Item(3), JobOptions.builder().queue("wf_fit").build(), "dump_orders")
                .step("upload_to_storage", "wf_upload", new Item(4), JobOptions.builder().queue("wf_fit").build(),
                        "compress", "checksum")
                .build()).id();
        docket.admin().setRateLimit(RateLimit.ofKind("send_email", 100, Duration.ofSeconds(1)));
        Dimension before = driver.manage().window().getSize();
        try {
            List<String> checked = new ArrayList<>();
            for (int width : List.of(WIDE, NARROW)) {
                driver.manage().window().setSize(new Dimension(width, 1000));
                String suffix = width == WIDE ? "" : "-" + width;
                signedOut();
                assertFits("login", width);
                documentationScreenshot("login" + suffix);
                login(ADMIN);
                for (String pattern : routePatterns()) {
                    String hash = "#/" + pattern.replace("jobs/:id", "jobs/" + flakyJob)
                            .replace("workflows/:id", "workflows/" + workflow);
                    assertThat(hash).as("an example for every parameter of %s", pattern).doesNotContain(":");
                    go(hash);
                    awaitLoaded();
                    assertFits(hash, width);
                    checked.add(hash + " at " + width);
                    String name = DOCUMENTED.get(pattern);
                    if (name != null) {
                        documentationScreenshot(name + suffix);
                    }
                }
                go("#/no/such/page");
                wait.until(ExpectedConditions.textToBe(By.id("not-found"), "Not found"));
                assertFits("#/no/such/page", width);
                driver.findElement(By.id("logout")).click();
                wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
            }
            assertThat(checked).as("the router's routes, at both widths").hasSize(20);
        } finally {
            driver.manage().window().setSize(before);
            docket.admin().removeRateLimit(RateLimit.Scope.KIND, "send_email");
            docket.admin().cancelWorkflow(workflow);
        }
    }

    /** The page at {@code hash} fits a 420 px screen (then the window is as it was). */
    private void fitsNarrow(String hash) {
        Dimension before = driver.manage().window().getSize();
        driver.manage().window().setSize(new Dimension(NARROW, 1000));
        try {
            go(hash);
            awaitLoaded();
            assertFits(hash, NARROW);
        } finally {
            driver.manage().window().setSize(before);
        }
    }

    /** The routes the README shows, by pattern, and the name of each one's screenshot. */
    private static final Map<String, String> DOCUMENTED = Map.of("overview", "overview", "jobs", "jobs",
            "jobs/:id", "job", "dlq", "dead-letters", "doctor", "doctor", "workflows/:id", "workflow");

    /** The router's patterns ("jobs/:id"), read from the running dashboard's own module. */
    @SuppressWarnings("unchecked")
    private List<String> routePatterns() {
        List<String> patterns = (List<String>) ((JavascriptExecutor) driver).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                import('/assets/js/app.js').then(m => done(m.ROUTES.map(r => r.pattern)), e => done(String(e)));""");
        assertThat(patterns).contains("overview", "jobs", "jobs/:id", "dlq", "workers", "doctor", "workflows",
                "workflows/:id");
        return patterns;
    }

    /** The page is no wider than the window; placeholders are not clipped; checkboxes sit by their labels. */
    private void assertFits(String page, int width) {
        @SuppressWarnings("unchecked")
        Map<String, Object> m = (Map<String, Object>) ((JavascriptExecutor) driver).executeScript("""
                const doc = document.documentElement;
                const inScrollBox = e => {
                    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
                        if (getComputedStyle(p).overflowX !== 'visible') return true;
                    }
                    return false;
                };
                const wider = [...document.querySelectorAll('body *')]
                    .filter(e => e.getBoundingClientRect().right > doc.clientWidth + 0.5 && e.getClientRects().length)
                    .filter(e => e.parentElement.getBoundingClientRect().right <= doc.clientWidth + 0.5 && !inScrollBox(e))
                    .map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + [...e.classList].join('.'));
                const canvas = document.createElement('canvas').getContext('2d');
                const clipped = [...document.querySelectorAll('input[placeholder]')].filter(i => i.offsetParent).filter(i => {
                    const cs = getComputedStyle(i);
                    canvas.font = cs.font;
                    const room = i.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
                    return canvas.measureText(i.placeholder).width > room;
                }).map(i => i.id + ': ' + i.placeholder);
                const apart = [...document.querySelectorAll('label > input[type=checkbox]')].filter(c => c.offsetParent).filter(c => {
                    // A checkbox stretched like a text field draws its box in the middle, far from the text.
                    if (c.getBoundingClientRect().width > 24) return true;
                    const text = [...c.parentElement.childNodes].find(n => n.nodeType === 3 && n.textContent.trim());
                    if (!text) return false;
                    const range = document.createRange();
                    range.selectNodeContents(text);
                    const gap = range.getBoundingClientRect().left - c.getBoundingClientRect().right;
                    return gap > 12;
                }).map(c => c.id);
                return {scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, innerWidth: innerWidth,
                        wider: wider, clipped: clipped, apart: apart};""");
        assertThat((Long) m.get("scrollWidth")).as("%s at %d px is no wider than the window (%s px); too wide: %s",
                page, width, m.get("clientWidth"), m.get("wider")).isLessThanOrEqualTo((Long) m.get("clientWidth"));
        assertThat((List<?>) m.get("clipped")).as("%s at %d px: placeholders cut off", page, width).isEmpty();
        assertThat((List<?>) m.get("apart")).as("%s at %d px: checkboxes far from their labels", page, width).isEmpty();
    }

    /**
     * The overview's charts open at the window that holds their data: 5 min for activity 3 minutes old,
     * 15 min for activity 6 minutes old, 1 h for activity older than 15 min, 5 min for none.
     */
    @Test
    void theChartsOpenAtTheWindowThatHoldsTheirData() {
        login(ADMIN);
        awaitLoaded();
        @SuppressWarnings("unchecked")
        List<Long> windows = (List<Long>) ((JavascriptExecutor) driver).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const now = Date.now();
                const at = (minutesAgo, completed) => ({t: now - minutesAgo * 60000,
                    queues: new Map([['default', {completed, failed: 0}]])});
                import('/assets/js/overview.js').then(m => done([
                    m.fittingWindow([at(3, 5), at(0, 5)], now),
                    m.fittingWindow([at(50, 0), at(6, 1), at(0, 0)], now),
                    m.fittingWindow([at(16, 2), at(0, 2)], now),
                    m.fittingWindow([at(50, 0), at(0, 0)], now),
                    m.fittingWindow([], now)]), e => done(String(e)));""");
        assertThat(windows).containsExactly(300_000L, 900_000L, 3_600_000L, 300_000L, 300_000L);
    }

    /** The check above can fail: an inline script, which the CSP blocks, shows up in the console log we read. */
    @Test
    void theConsoleCheckSeesAViolation() {
        ((JavascriptExecutor) driver).executeScript("""
                const s = document.createElement('script');
                s.textContent = 'window.inlineRan = true';
                document.body.appendChild(s);""");
        assertThat(((JavascriptExecutor) driver).executeScript("return window.inlineRan === true")).isEqualTo(false);
        List<String> seen = new ArrayList<>();
        wait.until(d -> seen.addAll(cspMessages()) || !seen.isEmpty());
        assertThat(seen.getFirst()).contains("inline script").contains("Content Security Policy");
    }

    private List<String> cspMessages() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .map(LogEntry::getMessage)
                .filter(m -> m.contains("Content Security Policy"))
                .collect(Collectors.toList());
    }

    /** Saves the whole page (not just the viewport) to target/screenshots/NAME.png. */
    private void screenshot(String name) throws IOException {
        Dimension window = driver.manage().window().getSize();
        long chrome = (Long) ((JavascriptExecutor) driver).executeScript("return window.outerHeight - window.innerHeight");
        long height = (Long) ((JavascriptExecutor) driver).executeScript(
                "return Math.ceil(document.documentElement.scrollHeight)");
        driver.manage().window().setSize(new Dimension(window.getWidth(), (int) Math.max(window.getHeight(), height + chrome)));
        try {
            Path dir = Path.of("target", "screenshots");
            Files.createDirectories(dir);
            File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(shot.toPath(), dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        } finally {
            driver.manage().window().setSize(window);
        }
    }

    /**
     * A screenshot for the README: to target/screenshots as every other, and to the folder
     * {@code docket.screenshots} names when it is set.
     */
    private void documentationScreenshot(String name) throws IOException {
        screenshot(name);
        if (SCREENSHOTS == null || SCREENSHOTS.isBlank()) {
            return;
        }
        Path dir = Path.of(SCREENSHOTS);
        if (!dir.isAbsolute()) {
            Path root = Path.of("").toAbsolutePath();
            while (root.getParent() != null && !Files.exists(root.resolve("mvnw"))) {
                root = root.getParent();
            }
            dir = root.resolve(SCREENSHOTS);
        }
        Files.createDirectories(dir);
        Files.copy(Path.of("target", "screenshots", name + ".png"), dir.resolve(name + ".png"),
                StandardCopyOption.REPLACE_EXISTING);
    }

    private void login(String token) {
        driver.findElement(By.id("token")).sendKeys(token);
        driver.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("topbar")));
        assertThat(driver.manage().getCookieNamed("docket_session").isHttpOnly()).isTrue();
    }

    private void go(String hash) {
        ((JavascriptExecutor) driver).executeScript("location.hash = arguments[0];", hash);
    }

    /** Waits until the current view has rendered its data (the views mark #main with data-loaded). */
    private void awaitLoaded() {
        wait.until(d -> (Boolean) ((JavascriptExecutor) d).executeScript(
                "const m = document.getElementById('main');"
                        + "return m.dataset.loaded !== undefined && m.dataset.loaded === location.hash;"));
    }

    private List<Long> waitForRows(int expected) {
        return wait.until(d -> {
            List<WebElement> rows = d.findElements(By.cssSelector("#jobs tbody tr"));
            if (rows.size() != expected) {
                return null;
            }
            return rows.stream().map(r -> Long.parseLong(r.getAttribute("data-id"))).toList();
        });
    }

    private By kindRow(String queue, String kind) {
        return By.cssSelector("tr.kind-row[data-queue='" + queue + "'][data-kind='" + kind + "']");
    }

    /** The overview re-renders every few seconds, so its elements are read and clicked retrying on staleness. */
    private String text(By by) {
        return wait.ignoring(StaleElementReferenceException.class).until(d -> d.findElement(by).getText());
    }

    private void click(By by) {
        wait.ignoring(StaleElementReferenceException.class).until(d -> {
            WebElement e = d.findElement(by);
            if (!e.isDisplayed() || !e.isEnabled()) {
                return false;
            }
            e.click();
            return true;
        });
    }

    private String cell(String queue, String kind, String column) {
        return text(By.cssSelector("tr.kind-row[data-queue='" + queue + "'][data-kind='" + kind + "'] "
                + "td[data-col='" + column + "']"));
    }

    private String queueCell(String queue, String column) {
        return text(By.cssSelector("tr.queue-row[data-queue='" + queue + "'] td[data-col='" + column + "']"));
    }

    private long firstId(String table, String where) {
        return queryLong("SELECT min(id) FROM " + schema + "." + table + " WHERE " + where);
    }

    private long count(String table, String where) {
        return queryLong("SELECT count(*) FROM " + schema + "." + table + " WHERE " + where);
    }

    private long queryLong(String sql) {
        try (var c = db.dataSource().getConnection(); var st = c.createStatement(); var rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
