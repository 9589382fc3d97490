package dev.docket.server.cli;

import dev.docket.server.api.JobRequests;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Option value types: durations such as {@code 30s}, instants, {@code NAME[=CONCURRENCY]} queues and
 * {@code HOST:PORT} addresses.
 */
final class Converters {

    private Converters() {
    }

    /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, {@code 1d} or ISO-8601 {@code PT30S}. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return JobRequests.parseDuration(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** An ISO-8601 instant ({@code 2026-01-31T12:00:00Z}) or date-time with offset ({@code ...+01:00}). */
    static final class InstantConverter implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return Instant.parse(value.strip());
            } catch (DateTimeParseException e) {
                try {
                    return OffsetDateTime.parse(value.strip()).toInstant();
                } catch (DateTimeParseException e2) {
                    throw new TypeConversionException("'" + clip(value) + "' is not an ISO-8601 time such as "
                            + "2026-01-31T12:00:00Z or 2026-01-31T13:00:00+01:00");
                }
            }
        }
    }

    /** A queue to serve and its concurrency. */
    record QueueSpec(String name, int concurrency) {

        static final int DEFAULT_CONCURRENCY = 10;

        @Override
        public String toString() {
            return name + "=" + concurrency;
        }
    }

    /**
     * A whole number within a field's real range; anything else (a word, a fraction, an overflow) is
     * refused quoting that range, as the API does: {@code must be a whole number from 1 to 10000, was '0.5'}.
     */
    abstract static class WholeNumberConverter implements ITypeConverter<Integer> {
        private final long min;
        private final long max;

        WholeNumberConverter(long min, long max) {
            this.min = min;
            this.max = max;
        }

        @Override
        public Integer convert(String value) {
            try {
                long n = Long.parseLong(value.strip());
                if (n >= min && n <= max) {
                    return (int) n;
                }
            } catch (NumberFormatException e) {
                // answered below
            }
            throw new TypeConversionException("must be a whole number from " + min + " to " + max + ", was '"
                    + clip(value) + "'");
        }
    }

    /** A job's priority: a smallint. */
    static final class PriorityConverter extends WholeNumberConverter {
        PriorityConverter() {
            super(Short.MIN_VALUE, Short.MAX_VALUE);
        }
    }

    /** Attempts before the dead-letter table. */
    static final class MaxAttemptsConverter extends WholeNumberConverter {
        MaxAttemptsConverter() {
            super(1, Integer.MAX_VALUE);
        }
    }

    /** A rate limit's starts per period. */
    static final class PermitsConverter extends WholeNumberConverter {
        PermitsConverter() {
            super(1, dev.docket.RateLimit.MAX_PERMITS);
        }
    }

    /** A dead-letter replay's jobs per second: the API's and the dashboard's rule. */
    static final class ReplayRateConverter extends WholeNumberConverter {
        ReplayRateConverter() {
            super(1, dev.docket.server.api.DlqApi.MAX_RATE);
        }
    }

    /** {@code NAME} or {@code NAME=CONCURRENCY}; the concurrency defaults to {@value QueueSpec#DEFAULT_CONCURRENCY}. */
    static final class QueueConverter implements ITypeConverter<QueueSpec> {
        @Override
        public QueueSpec convert(String value) {
            int eq = value.indexOf('=');
            String name = eq < 0 ? value : value.substring(0, eq);
            int concurrency = QueueSpec.DEFAULT_CONCURRENCY;
            if (eq >= 0) {
                try {
                    concurrency = Integer.parseInt(value.substring(eq + 1));
                } catch (NumberFormatException e) {
                    concurrency = -1;
                }
                if (concurrency < 1 || concurrency > 10_000) {
                    throw new TypeConversionException("the concurrency of queue '" + clip(name)
                            + "' must be a whole number from 1 to 10000, was '" + clip(value.substring(eq + 1)) + "'");
                }
            }
            try {
                dev.docket.JobOptions.builder().queue(name);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
            return new QueueSpec(name, concurrency);
        }
    }

    /** An address to listen on: a host (a name, an IPv4 address, or an IPv6 one in brackets) and a port. */
    record ListenAddress(String host, int port) {

        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /**
     * {@code HOST:PORT}, {@code [IPV6]:PORT}; port 0 picks a free one. The host is a DNS name or an IP
     * address: letters, digits, {@code .}, {@code -} and {@code _} (and {@code :} inside brackets), at most
     * 253 characters. Whether it is an address of this machine shows when the command binds it.
     */
    static final class ListenAddressConverter implements ITypeConverter<ListenAddress> {

        private static final Pattern ADDRESS =
                Pattern.compile("(?:\\[([0-9A-Fa-f:.]{2,45})]|([A-Za-z0-9._-]{1,253})):([0-9]{1,5})");

        @Override
        public ListenAddress convert(String value) {
            Matcher m = ADDRESS.matcher(value);
            if (!m.matches()) {
                throw new TypeConversionException("'" + clip(value) + "' is not HOST:PORT (such as 127.0.0.1:9400, "
                        + "0.0.0.0:9400 or [::1]:9400)");
            }
            int port = Integer.parseInt(m.group(3));
            if (port > 65_535) {
                throw new TypeConversionException("the port must be from 0 to 65535, was " + port);
            }
            return new ListenAddress(m.group(1) != null ? m.group(1) : m.group(2), port);
        }
    }

    /** A duration as the options take it: {@code 10s}, {@code 1500ms}, {@code 5m}. */
    static String format(Duration d) {
        long ms = d.toMillis();
        if (ms % 3_600_000 == 0 && ms > 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0 && ms > 0) {
            return ms / 60_000 + "m";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + "s";
        }
        return ms + "ms";
    }

    static String clip(String s) {
        String shown = s.length() > 60 ? s.substring(0, 60) + "..." : s;
        return shown.replaceAll("\\p{Cntrl}", "?");
    }
}
