package dev.docket.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.docket.Docket;
import dev.docket.Worker;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * One worker process of the scale-out scenario: {@code ScaleOutWorker JDBC_URL CONCURRENCY}. It opens
 * Docket on the benchmark's schema, prints {@code ready}, starts its worker when it reads {@code go}, and
 * stops it gracefully when it reads {@code stop} or its stdin closes (so it never outlives the benchmark).
 */
public final class ScaleOutWorker {
    private ScaleOutWorker() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ScaleOutWorker JDBC_URL CONCURRENCY");
            System.exit(2);
        }
        int concurrency = Integer.parseInt(args[1]);
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(args[0]);
        // As in-process (concurrency + 8), but at most 40: four JVMs at concurrency 64 and the benchmark's own
        // pool must stay within the embedded server's max_connections (300); a worker needs queues + 6.
        hc.setMaximumPoolSize(Math.min(40, Math.max(16, concurrency + 8)));
        hc.setPoolName("scale-out");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (HikariDataSource ds = new HikariDataSource(hc);
             Docket docket = Docket.builder(ds).schema(DocketSut.SCHEMA).build()) {
            System.out.println("ready");
            System.out.flush();
            if (!"go".equals(in.readLine())) {
                return;
            }
            try (Worker worker = docket.worker().queue("default", concurrency)
                    .handler("noop", DocketSut.Ping.class, (p, ctx) -> {
                    })
                    .start()) {
                String line;
                do {
                    line = in.readLine();
                } while (line != null && !line.equals("stop"));
            }
        }
    }
}
