package dev.docket.server.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: left-aligned text columns, right-aligned numbers, the last column unpadded. */
final class Table {

    private final String[] headers;
    private final boolean[] numeric;
    private final List<String[]> rows = new ArrayList<>();

    /** Headers ending in {@code >} are right-aligned (numbers); the marker is not printed. */
    Table(String... headers) {
        this.headers = new String[headers.length];
        this.numeric = new boolean[headers.length];
        for (int i = 0; i < headers.length; i++) {
            numeric[i] = headers[i].endsWith(">");
            this.headers[i] = numeric[i] ? headers[i].substring(0, headers[i].length() - 1) : headers[i];
        }
    }

    void row(Object... cells) {
        String[] row = new String[headers.length];
        for (int i = 0; i < row.length; i++) {
            Object c = i < cells.length ? cells[i] : null;
            row[i] = c == null ? "-" : c.toString().replaceAll("\\p{Cntrl}", " ");
        }
        rows.add(row);
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] width = new int[headers.length];
        for (int i = 0; i < headers.length; i++) {
            width[i] = headers[i].length();
            for (String[] row : rows) {
                width[i] = Math.max(width[i], row[i].length());
            }
        }
        line(out, headers, width);
        for (String[] row : rows) {
            line(out, row, width);
        }
        out.flush();
    }

    private void line(PrintWriter out, String[] cells, int[] width) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append("  ");
            }
            boolean last = i == cells.length - 1;
            String pad = " ".repeat(width[i] - cells[i].length());
            if (numeric[i]) {
                b.append(pad).append(cells[i]);
            } else {
                b.append(cells[i]).append(last ? "" : pad);
            }
        }
        out.println(b.toString().stripTrailing());
    }
}
