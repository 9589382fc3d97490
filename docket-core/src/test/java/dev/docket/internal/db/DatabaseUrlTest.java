package dev.docket.internal.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The one parser of database URLs (the command's, the demo's and the test kits'): its forms and what it refuses. */
class DatabaseUrlTest {

    private static final String SECRET = "s3cr3t";

    @Test
    void aPostgresUrlBecomesAJdbcUrlWithDecodedCredentials() {
        assertThat(DatabaseUrl.parse("postgres://app:p%40ss%3Aword@db.internal:5433/shop?sslmode=require"))
                .isEqualTo(new DatabaseUrl("jdbc:postgresql://db.internal:5433/shop?sslmode=require", "app", "p@ss:word",
                        "db.internal:5433/shop"));
        assertThat(DatabaseUrl.parse("postgresql://db/shop"))
                .isEqualTo(new DatabaseUrl("jdbc:postgresql://db/shop", null, null, "db/shop"));
        assertThat(DatabaseUrl.parse("  postgres://db/shop\n")).as("white space around it")
                .isEqualTo(new DatabaseUrl("jdbc:postgresql://db/shop", null, null, "db/shop"));
    }

    @Test
    void aJdbcUrlIsPassedOnAsItIsAndShownWithoutItsQuery() {
        DatabaseUrl url = DatabaseUrl.parse("jdbc:postgresql://db/shop?user=a&password=" + SECRET);
        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://db/shop?user=a&password=" + SECRET);
        assertThat(url.user()).isNull();
        assertThat(url.password()).isNull();
        assertThat(url).hasToString("jdbc:postgresql://db/shop");
    }

    @Test
    void severalHostsAndCredentialsFromTheQuery() {
        DatabaseUrl url = DatabaseUrl.parse("postgres://a%3Ab:p%2Fw%40d@h1:5432,h2:5433/my%20db?sslmode=require&password=q");
        assertThat(url.user()).isEqualTo("a:b");
        assertThat(url.password()).as("the query's password wins").isEqualTo("q");
        assertThat(url.jdbcUrl()).isEqualTo("jdbc:postgresql://h1:5432,h2:5433/my%20db?sslmode=require");
        assertThat(url.toString()).isEqualTo("h1:5432,h2:5433/my db").doesNotContain("q").doesNotContain("p/w");
        assertThat(DatabaseUrl.parse("postgresql://db/shop?user=app&password=" + SECRET))
                .isEqualTo(new DatabaseUrl("jdbc:postgresql://db/shop", "app", SECRET, "db/shop"));
    }

    @Test
    void passwordsKeepWhatUriDecodingKeeps() {
        assertThat(DatabaseUrl.parse("postgres://u:p/w@d@db.example/app").password())
                .as("unescaped '/' and '@': the last '@' ends the user info").isEqualTo("p/w@d");
        assertThat(DatabaseUrl.parse("postgres://u:a+b@h/d").password()).as("a plus is not a space").isEqualTo("a+b");
        assertThat(DatabaseUrl.parse("postgres://u:%C3%A9t%C3%A9@h/caf%C3%A9"))
                .isEqualTo(new DatabaseUrl("jdbc:postgresql://h/caf%C3%A9", "u", "été", "h/café"));
        assertThat(DatabaseUrl.parse("postgres://u:@h/d").password()).as("an empty password").isEmpty();
        assertThat(DatabaseUrl.parse("postgres://@h/d").user()).as("an empty user is none").isNull();
    }

    @Test
    void noHostIsLocalhostAndIpv6AddressesAreInBrackets() {
        assertThat(DatabaseUrl.parse("postgres:///shop").jdbcUrl()).isEqualTo("jdbc:postgresql://localhost/shop");
        assertThat(DatabaseUrl.parse("postgres://:5433/shop").jdbcUrl()).isEqualTo("jdbc:postgresql://localhost:5433/shop");
        assertThat(DatabaseUrl.parse("postgresql://").jdbcUrl()).isEqualTo("jdbc:postgresql://localhost/");
        assertThat(DatabaseUrl.parse("postgres://[::1]:5432/db").jdbcUrl()).isEqualTo("jdbc:postgresql://[::1]:5432/db");
        assertThat(DatabaseUrl.parse("postgres://[fe80::1%25eth0]/db").jdbcUrl())
                .isEqualTo("jdbc:postgresql://[fe80::1%25eth0]/db");
    }

    @Test
    void otherSchemesAndEmptyTextAreRefused() {
        for (String text : new String[] {null, "", "   ", "mysql://root@localhost/db", "postgres:/db", "POSTGRES://h/db",
                "http://h/db", "jdbc:mysql://h/db"}) {
            assertThatIllegalArgumentException().as("%s", text).isThrownBy(() -> DatabaseUrl.parse(text))
                    .withMessageMatching("it is empty|it must start with postgres://, postgresql:// or jdbc:postgresql:");
        }
    }

    @Test
    void controlCharactersAreRefusedWhereverTheyAre() {
        for (String text : new String[] {"postgres://u:" + SECRET + "@h/db\r\nX-Injected: 1", "postgres://u:" + SECRET
                + "\0@h/db", "postgres://h/d\tb", "jdbc:postgresql://h/db?password=" + SECRET + "\u007f"}) {
            assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse(text))
                    .withMessageContaining("control character").withMessageNotContaining(SECRET);
        }
    }

    @Test
    void malformedEscapesAreRefusedWithoutQuotingThem() {
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://u:50%off" + SECRET + "@h/db"))
                .withMessage("the password has a '%' that starts no %XX escape (write a '%' as %25)");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://u:" + SECRET + "%@h/db"))
                .withMessageStartingWith("the password has a '%'");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://u%4@h/db"))
                .withMessageStartingWith("the user has a '%'");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://u:" + SECRET + "%00@h/db"))
                .withMessage("the password contains %00");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://h/shop%00;DROP"))
                .withMessage("the database name contains %00");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://u:%FF%FE" + SECRET + "@h/db"))
                .withMessage("the password has %XX escapes that are not UTF-8");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://h/db?password=%G0"))
                .withMessageStartingWith("the password has a '%'");
    }

    @Test
    void hostsPortsAndDatabaseNamesThatAreNotAreRefused() {
        List<String> badHosts = List.of("postgres://u:" + SECRET + "@h;DROP/db", "postgres://u:" + SECRET + "@exa mple/db",
                "postgres://h$/db", "postgres://[::1/db", "postgres://[zz]/db", "postgres://h1,h 2/db", "postgres://h'/db",
                "postgres://h\"/db", "postgres://[::1]x/db");
        for (String text : badHosts) {
            assertThatIllegalArgumentException().as("%s", text).isThrownBy(() -> DatabaseUrl.parse(text))
                    .withMessageContaining("is not a host name or address").withMessageNotContaining(SECRET);
        }
        for (String port : List.of("notaport", "0", "65536", "99999", "-1", "", "5432x", "123456")) {
            assertThatIllegalArgumentException().as("port %s", port)
                    .isThrownBy(() -> DatabaseUrl.parse("postgres://u:" + SECRET + "@localhost:" + port + "/db"))
                    .withMessageContaining("is not a number from 1 to 65535").withMessageNotContaining(SECRET);
        }
        assertThat(DatabaseUrl.parse("postgres://h:65535/db").jdbcUrl()).isEqualTo("jdbc:postgresql://h:65535/db");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://h/a%2Fb"))
                .withMessage("the database name must not contain '/'");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://h/../etc"))
                .withMessage("the database name must not contain '/'");
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("jdbc:postgresql://db:port/x"))
                .withMessageContaining("PgJDBC cannot read it");
    }

    @Test
    void aHugeHostIsNamedOnlyByItsBeginning() {
        String huge = "h".repeat(100_000) + "!";
        assertThatIllegalArgumentException().isThrownBy(() -> DatabaseUrl.parse("postgres://" + huge + "/db"))
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
    }

    @Test
    void aDatabaseNameIsEncodedForPgJdbcWhateverItHolds() {
        assertThat(DatabaseUrl.parse("postgres://h/a%3Fb%26c%3Dd%23e%25f").jdbcUrl())
                .as("a name with ?, &, =, # and %% cannot leak into the JDBC URL's query")
                .isEqualTo("jdbc:postgresql://h/a%3Fb%26c%3Dd%23e%25f");
        assertThat(DatabaseUrl.parse("postgres://h/a%3Fb%26c%3Dd%23e%25f")).hasToString("h/a?b&c=d#e%f");
    }
}
