package dev.docket.server.cli;

import dev.docket.JobInfo;
import dev.docket.SignalDelivery;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code docket job signal ID NAME [--payload JSON] [--by NAME]}: sends a job a signal, such as an approval. */
@Command(name = "signal", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Sends a job the signal NAME, in a transaction of its own. If the job waits for this signal, its "
                + "wait ends and it becomes ready (\"resumed\"); if it is live but not waiting for it, the signal is kept "
                + "for its handler and its next wait of that name (\"kept\"). Who sent it is recorded with the signal "
                + "and in the job's metadata (docket.signals; never the payload).",
                "Exit status: 0 sent, 1 the job is unknown or no longer live (or holds 100 kept signals), 2 bad input."})
final class JobSignalCommand extends DatabaseCommand {

    @Parameters(index = "0", paramLabel = "ID", description = "The job id.")
    long id;

    @Parameters(index = "1", paramLabel = "NAME", description = "The signal's name: 1 to 128 characters of A-Z a-z 0-9 _ . : -.")
    String name;

    @Option(names = "--payload", paramLabel = "JSON", order = 1,
            description = "The signal's payload as JSON (default: {}); @FILE reads it from a file.")
    String payload;

    @Option(names = "--by", paramLabel = "NAME", order = 2,
            description = "Who sends it, for the record (default: the operating-system user).")
    String by;

    @Override
    public Integer call() {
        checkId("job", id);
        String json = payload == null ? null : DlqTriageCommands.jsonArgument("--payload", payload);
        String sentBy = (by != null ? by : System.getProperty("user.name", "unknown")) + " (cli)";
        record Sent(SignalDelivery delivery, JobInfo job) {
        }
        Sent sent = withDocket(docket -> {
            SignalDelivery delivery;
            try {
                delivery = docket.admin().sendSignal(id, name, json, sentBy);
            } catch (IllegalStateException e) {
                throw CommandFailure.failed("job " + id + " takes no more signals: 100 are kept that no wait took");
            }
            return new Sent(delivery, docket.job(id).orElse(null));
        });
        if (sent.job() == null) {
            throw JobCommand.noJob(id, database.schema);
        }
        String state = sent.job().state().name().toLowerCase(Locale.ROOT);
        return switch (sent.delivery()) {
            case RESUMED -> println("job " + id + ": signal " + name + " ended its wait; it is " + state);
            case KEPT -> println("job " + id + ": signal " + name + " kept (the job is " + state
                    + (sent.job().signalWait() == null ? "" : ", waiting for " + sent.job().signalWait().signal())
                    + "); its handler reads it, and its next wait for " + name + " takes it");
            case NO_LIVE_JOB -> throw CommandFailure.failed("job " + id + " is " + state
                    + ": a signal reaches only live jobs");
        };
    }
}
