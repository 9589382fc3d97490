package dev.docket.internal.crypto;

import dev.docket.EncryptedPayloadException;
import dev.docket.JobInfo;
import dev.docket.JobSignal;
import java.util.ArrayList;
import java.util.List;

/**
 * A job as a Docket shows it ({@code Docket.job}): its encrypted payload, output and signal payloads decrypted
 * where this process has the key, {@code null} where it has not, never the envelope; and marked
 * {@code payloadEncrypted}.
 */
public final class StoredValues {

    private StoredValues() {
    }

    public static JobInfo readable(JobInfo job, PayloadCrypto crypto) {
        boolean payloadSealed = PayloadCrypto.isSealed(job.payload());
        boolean outputSealed = PayloadCrypto.isSealed(job.output());
        boolean anySignalSealed = job.signals().stream().anyMatch(s -> PayloadCrypto.isSealed(s.payload()));
        if (!payloadSealed && !outputSealed && !anySignalSealed) {
            return job;
        }
        String payload = payloadSealed ? open(crypto, job.payload(), PayloadCrypto.payloadContext(job.kind()))
                : job.payload();
        String output = outputSealed ? open(crypto, job.output(), PayloadCrypto.outputContext(job.id())) : job.output();
        List<JobSignal> signals = new ArrayList<>(job.signals().size());
        for (JobSignal s : job.signals()) {
            signals.add(!PayloadCrypto.isSealed(s.payload()) ? s : new JobSignal(s.id(), s.name(), s.sentAt(),
                    s.sentBy(), s.resumedAt(), open(crypto, s.payload(), PayloadCrypto.signalContext(job.id(), s.name()))));
        }
        return job.withStoredValues(payload, output, signals, true);
    }

    private static String open(PayloadCrypto crypto, String envelope, String context) {
        if (!crypto.hasKeys()) {
            return null;
        }
        try {
            return crypto.open(envelope, context, "a value");
        } catch (EncryptedPayloadException e) {
            return null;
        }
    }
}
