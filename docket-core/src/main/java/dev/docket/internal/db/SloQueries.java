package dev.docket.internal.db;

import dev.docket.Slo;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The slos table: per queue, the lag objective; per kind, the pickup p99 objective. */
public record SloQueries(Jdbc jdbc, Statements sql) {

    /** Every objective set, by target then name. */
    public List<Slo> list() throws SQLException {
        return jdbc.list(sql.get("sloList"), Jdbc.NO_PARAMETERS, rs -> new Slo(
                Slo.Target.valueOf(rs.getString("scope").toUpperCase(Locale.ROOT)), rs.getString("name"),
                Duration.ofNanos(Math.round(rs.getDouble("seconds") * 1e9)), Jdbc.instant(rs, "updated_at")));
    }

    /** Sets the objective of {@code target} for {@code name}; null clears it. */
    public void set(Slo.Target target, String name, Duration objective) throws SQLException {
        String scope = target.name().toLowerCase(Locale.ROOT);
        if (objective == null) {
            jdbc.update(sql.get("sloClear"), p -> p.text(scope).text(name));
        } else {
            jdbc.update(sql.get("sloSet"), p -> p.text(scope).text(name).float8(objective.toNanos() / 1e9));
        }
    }
}
