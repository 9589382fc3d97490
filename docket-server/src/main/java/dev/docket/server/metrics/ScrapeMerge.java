package dev.docket.server.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several Prometheus text expositions as one: a metric family's {@code # HELP} and {@code # TYPE}
 * lines once (the first exposition's), followed by its samples from every exposition in order.
 * Prometheus refuses a scrape that declares a family twice, which concatenating would.
 */
final class ScrapeMerge {

    private ScrapeMerge() {
    }

    private record Family(List<String> header, List<String> samples) {
    }

    static String merge(List<String> expositions) {
        Map<String, Family> families = new LinkedHashMap<>();
        for (String exposition : expositions) {
            Family current = null;
            String currentName = null;
            boolean declaredHere = false;
            for (String line : exposition.split("\n")) {
                if (line.isEmpty()) {
                    continue;
                }
                if (line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                    String name = line.substring(7).split(" ", 2)[0];
                    if (!name.equals(currentName)) {
                        currentName = name;
                        declaredHere = !families.containsKey(name);
                        current = families.computeIfAbsent(name, n -> new Family(new ArrayList<>(), new ArrayList<>()));
                    }
                    if (declaredHere) {
                        current.header().add(line);
                    }
                } else if (line.startsWith("#")) {
                    continue;
                } else if (current != null) {
                    current.samples().add(line);
                } else {
                    families.computeIfAbsent("", n -> new Family(new ArrayList<>(), new ArrayList<>())).samples().add(line);
                }
            }
        }
        StringBuilder out = new StringBuilder();
        families.values().forEach(f -> {
            f.header().forEach(l -> out.append(l).append('\n'));
            f.samples().forEach(l -> out.append(l).append('\n'));
        });
        return out.toString();
    }
}
