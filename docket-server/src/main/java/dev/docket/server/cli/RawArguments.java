package dev.docket.server.cli;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The command's arguments as the bytes the process received, decoded as UTF-8 and nothing else.
 *
 * <p>The JVM decodes {@code argv} with the locale's charset ({@code sun.jnu.encoding}, which a
 * {@code -D} option cannot change) and puts U+FFFD in place of every byte it cannot decode: under
 * {@code LANG} unset, {@code café} arrives as {@code caf\uFFFD\uFFFD}; under {@code C.UTF-8} an invalid
 * byte arrives as U+FFFD. Stored, either would be text the user never typed. So on Linux the
 * arguments are read again from {@code /proc/self/cmdline} and decoded strictly: valid UTF-8 is kept
 * exactly whatever the locale, and anything else is refused as a usage error naming the option.
 * Where the raw bytes cannot be read, an argument holding U+FFFD is refused under a locale that is
 * not UTF-8 (the JVM may have put it there), since it cannot be told from one the user typed.
 * The environment variables the command reads ({@code DOCKET_DATABASE_URL}, {@code DOCKET_TOKENS})
 * are read the same way, from {@code /proc/self/environ}.
 */
final class RawArguments {

    private static final Path CMDLINE = Path.of("/proc/self/cmdline");
    private static final Path ENVIRON = Path.of("/proc/self/environ");

    private RawArguments() {
    }

    /** The arguments {@code main} received, made exact; a {@link CommandFailure} (exit 2) if one is not UTF-8. */
    static String[] exact(String[] args) {
        return exact(args, readCmdline(), Charset.forName(System.getProperty("sun.jnu.encoding",
                Charset.defaultCharset().name()), Charset.defaultCharset()));
    }

    /**
     * {@code args} as the JVM decoded them with {@code platform}, made exact from the process's raw
     * command line {@code cmdline} (NUL-terminated entries, the program and JVM options first) when
     * it is known and its last entries are these arguments.
     */
    static String[] exact(String[] args, Optional<byte[]> cmdline, Charset platform) {
        Optional<List<byte[]>> raw = cmdline.map(RawArguments::split).filter(all -> all.size() >= args.length)
                .map(all -> all.subList(all.size() - args.length, all.size()));
        if (raw.isPresent() && sameArguments(args, raw.get())) {
            String[] exact = new String[args.length];
            for (int i = 0; i < args.length; i++) {
                exact[i] = decode(raw.get().get(i), args, i);
            }
            return exact;
        }
        if (!platform.equals(StandardCharsets.UTF_8)) {
            for (int i = 0; i < args.length; i++) {
                if (args[i].indexOf('\uFFFD') >= 0) {
                    throw CommandFailure.usage(name(args, i) + " holds text this locale (" + platform.name()
                            + ") could not decode; run docket under a UTF-8 locale, e.g. LC_ALL=C.UTF-8");
                }
            }
        }
        return args;
    }

    /**
     * Whether the raw entries line up with the JVM's arguments: their ASCII characters agree (a
     * charset changes only the rest).
     */
    private static boolean sameArguments(String[] args, List<byte[]> raw) {
        for (int i = 0; i < args.length; i++) {
            if (!ascii(args[i]).equals(ascii(new String(raw.get(i), StandardCharsets.ISO_8859_1)))) {
                return false;
            }
        }
        return true;
    }

    private static String ascii(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.chars().filter(c -> c < 0x80).forEach(c -> b.append((char) c));
        return b.toString();
    }

    private static String decode(byte[] bytes, String[] args, int i) {
        CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        try {
            CharBuffer chars = utf8.decode(ByteBuffer.wrap(bytes));
            return chars.toString();
        } catch (CharacterCodingException e) {
            throw CommandFailure.usage(name(args, i) + " is not valid UTF-8 text; docket stores text exactly or "
                    + "not at all");
        }
    }

    /** How to name argument {@code i} to the user: its option ({@code --tenant}), or its position. */
    static String name(String[] args, int i) {
        String arg = args[i];
        if (arg.startsWith("-") && arg.indexOf('=') > 0) {
            return "the value of " + arg.substring(0, arg.indexOf('='));
        }
        if (i > 0 && args[i - 1].startsWith("-") && args[i - 1].indexOf('=') < 0 && !arg.startsWith("-")) {
            return "the value of " + args[i - 1];
        }
        return "argument " + (i + 1);
    }

    /**
     * The environment variable {@code name} as the bytes the process received, decoded as UTF-8 (the
     * JVM decodes the environment with the locale's charset too); {@code null} when unset.
     *
     * @throws CommandFailure (exit 2) if its value is not valid UTF-8
     */
    static String env(String name) {
        Optional<byte[]> environ = read(ENVIRON);
        if (environ.isEmpty()) {
            return System.getenv(name);
        }
        byte[] prefix = (name + "=").getBytes(StandardCharsets.UTF_8);
        for (byte[] entry : split(environ.get())) {
            if (entry.length >= prefix.length && java.util.Arrays.equals(entry, 0, prefix.length, prefix, 0, prefix.length)) {
                try {
                    return strictUtf8().decode(ByteBuffer.wrap(entry, prefix.length, entry.length - prefix.length)).toString();
                } catch (CharacterCodingException e) {
                    throw CommandFailure.usage("the environment variable " + name + " is not valid UTF-8 text");
                }
            }
        }
        return null;
    }

    private static CharsetDecoder strictUtf8() {
        return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
    }

    private static Optional<byte[]> readCmdline() {
        return read(CMDLINE);
    }

    private static Optional<byte[]> read(Path file) {
        try {
            return Optional.of(Files.readAllBytes(file));
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return Optional.empty();
        }
    }

    /** The NUL-terminated entries of a {@code /proc/PID/cmdline}. */
    private static List<byte[]> split(byte[] cmdline) {
        List<byte[]> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < cmdline.length; i++) {
            if (cmdline[i] == 0) {
                entries.add(java.util.Arrays.copyOfRange(cmdline, start, i));
                start = i + 1;
            }
        }
        if (start < cmdline.length) {
            entries.add(java.util.Arrays.copyOfRange(cmdline, start, cmdline.length));
        }
        return entries;
    }
}
