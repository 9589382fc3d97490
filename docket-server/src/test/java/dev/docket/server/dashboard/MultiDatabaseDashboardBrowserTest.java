package dev.docket.server.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import dev.docket.Docket;
import dev.docket.JobOptions;
import dev.docket.server.DocketServer;
import dev.docket.server.auth.Role;
import dev.docket.server.auth.TokenStore;
import dev.docket.test.TestPostgres;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard of a server over two PostgreSQL servers, in headless Chromium: the Databases entry
 * appears, the page shows each database's queues and workers in a section of its own, and a job is
 * found as DATABASE/ID.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MultiDatabaseDashboardBrowserTest {

    private static final String ADMIN = "admin-token-for-multi-database-browser-tests";

    record Task(int n) {
    }

    private final String schema = "dash_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private Docket orders;
    private Docket imaging;
    private DocketServer server;
    private WebDriver driver;
    private WebDriverWait wait;
    private long imagingJob;

    @BeforeAll
    void start() throws IOException {
        HeadlessChromium.assumeInstalled();
        orders = Docket.builder(TestPostgres.get().dataSource()).schema(schema).build();
        orders.migrate();
        imaging = Docket.builder(TestPostgres.second().dataSource()).schema(schema).build();
        imaging.migrate();
        orders.enqueue("receipt", new Task(1), JobOptions.builder().queue("email").build());
        imagingJob = imaging.enqueue("thumbnail", new Task(2), JobOptions.builder().queue("thumbnails").build());
        TokenStore tokens = new TokenStore();
        tokens.add(Role.ADMIN, ADMIN);
        Map<String, Docket> databases = new LinkedHashMap<>();
        databases.put("orders", orders);
        databases.put("imaging", imaging);
        server = DocketServer.start(databases, tokens, DocketServer.Config.defaults().withPort(0));
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
        for (Docket d : new Docket[] {orders, imaging}) {
            if (d != null) {
                d.close();
            }
        }
        if (orders != null) {
            TestPostgres.get().dropSchema(schema);
            TestPostgres.second().dropSchema(schema);
        }
    }

    @Test
    void eachDatabaseHasASectionAndAJobIsFoundAsDatabaseSlashId() {
        driver.get(server.baseUrl() + "/");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        driver.findElement(By.id("token")).sendKeys(ADMIN);
        driver.findElement(By.id("login-submit")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("nav-databases")));
        driver.findElement(By.id("nav-databases")).click();
        wait.until(d -> "#/databases".equals(((JavascriptExecutor) d).executeScript(
                "return document.getElementById('main').dataset.loaded;")));

        assertThat(driver.findElement(By.cssSelector("#database-orders h2")).getText()).isEqualTo("orders (default)");
        assertThat(driver.findElement(By.cssSelector("#database-imaging h2")).getText()).isEqualTo("imaging");
        assertThat(driver.findElements(By.cssSelector("#database-orders tr[data-queue='email']"))).hasSize(1);
        assertThat(driver.findElements(By.cssSelector("#database-orders tr[data-queue='thumbnails']"))).isEmpty();
        assertThat(driver.findElement(By.cssSelector("#database-imaging tr[data-queue='thumbnails'] [data-col='ready']"))
                .getText()).isEqualTo("1");

        driver.findElement(By.id("database-job")).sendKeys("imaging/" + imagingJob);
        driver.findElement(By.cssSelector("#database-job-form button")).click();
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("database-job-found")));
        assertThat(driver.findElement(By.id("database-job-found")).getText())
                .contains("imaging/" + imagingJob).contains("thumbnail on queue thumbnails");

        driver.findElement(By.id("database-job")).clear();
        driver.findElement(By.id("database-job")).sendKeys("billing/1");
        driver.findElement(By.cssSelector("#database-job-form button")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("database-job-result"), "no database"));
        driver.findElement(By.id("database-job")).clear();
        driver.findElement(By.id("database-job")).sendKeys("<img src=x>/1");
        driver.findElement(By.cssSelector("#database-job-form button")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("database-job-result"), "DATABASE/ID"));
    }
}
