package io.locktable.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a run found: named metrics, checked against the goals of {@code benchmarks/goals.properties}, and named
 * tables, written into {@code docs/benchmarks.md} between {@code <!-- bench:table NAME -->} and {@code <!--
 * /bench:table -->}. Everything outside the markers is prose written by hand and stays as it is.
 */
final class Report {

    private static final Pattern MARKED =
            Pattern.compile("(<!-- bench:table ([\\w.-]+) -->\\n)(.*?)(<!-- /bench:table -->)", Pattern.DOTALL);

    /** A goal: {@code metric op bound}, and what it means. */
    record Goal(String id, String metric, String op, double bound, String text) {
        boolean met(double value) {
            return switch (op) {
                case "<" -> value < bound;
                case "<=" -> value <= bound;
                case ">=" -> value >= bound;
                case "==" -> value == bound;
                default -> throw new IllegalArgumentException("goal " + id + ": unknown operator " + op);
            };
        }
    }

    final Map<String, Double> metrics = new LinkedHashMap<>();
    final Map<String, String> notes = new LinkedHashMap<>();
    final Map<String, String> tables = new LinkedHashMap<>();

    /** Records a metric, with how the report shows it beside its goal. */
    void metric(String name, double value, String shown) {
        metrics.put(name, value);
        notes.put(name, shown);
    }

    void table(String name, List<String> header, List<List<String>> rows) {
        StringBuilder text = new StringBuilder();
        line(text, header);
        text.append("|---".repeat(header.size())).append("|\n");
        rows.forEach(row -> line(text, row));
        tables.put(name, text.toString());
    }

    private static void line(StringBuilder text, List<String> cells) {
        text.append('|');
        cells.forEach(cell -> text.append(' ').append(cell.replace("|", "\\|")).append(" |"));
        text.append('\n');
    }

    /**
     * Reads the goals: one a line, {@code id = metric op bound | text}; {@code #} starts a comment.
     */
    static List<Goal> goals(String text) {
        List<Goal> goals = new ArrayList<>();
        for (String line : text.lines().map(String::strip).toList()) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Matcher m = Pattern.compile("([\\w.-]+)\\s*=\\s*([\\w.-]+)\\s*(<=|>=|==|<)\\s*([-\\d.]+)\\s*\\|\\s*(.+)")
                    .matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a goal: " + line);
            }
            goals.add(new Goal(m.group(1), m.group(2), m.group(3), Double.parseDouble(m.group(4)), m.group(5)));
        }
        return goals;
    }

    /** Adds the table {@code goals}: each goal, what this run measured, and the verdict; returns the misses. */
    List<Goal> verdicts(List<Goal> goals) {
        List<List<String>> rows = new ArrayList<>();
        List<Goal> missed = new ArrayList<>();
        for (Goal goal : goals) {
            Double value = metrics.get(goal.metric());
            String verdict;
            if (value == null || value.isNaN()) {
                verdict = "not measured";
                missed.add(goal);
            } else if (goal.met(value)) {
                verdict = "met";
            } else {
                verdict = "**missed**";
                missed.add(goal);
            }
            rows.add(List.of(
                    goal.text(),
                    goal.op() + " " + Stats.num(goal.bound()),
                    value == null ? "—" : notes.getOrDefault(goal.metric(), Stats.num(value)),
                    verdict));
        }
        table("goals", List.of("goal", "bound", "this run", "verdict"), rows);
        return missed;
    }

    /**
     * Writes the tables into a document between their markers; markers without a table of this run say so.
     *
     * @return the table names the document has no marker for
     */
    Set<String> fill(Path template, Path out) {
        return fill(template, out, false);
    }

    /**
     * Writes the tables into a document between their markers. A full run marks the tables it did not make as not
     * measured; a partial one ({@code --only}) leaves them as they are.
     *
     * @return the table names the document has no marker for
     */
    Set<String> fill(Path template, Path out, boolean partial) {
        try {
            String doc = Files.readString(template);
            Set<String> unplaced = new TreeSet<>(tables.keySet());
            Matcher m = MARKED.matcher(doc);
            StringBuilder filled = new StringBuilder();
            while (m.find()) {
                String table = tables.get(m.group(2));
                unplaced.remove(m.group(2));
                String body = table != null ? table : partial ? m.group(3) : "_Not measured in this run._\n";
                m.appendReplacement(filled, Matcher.quoteReplacement(m.group(1) + body + m.group(4)));
            }
            m.appendTail(filled);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, filled.toString());
            return unplaced;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The body of a marked table in a document, or empty. */
    static String tableIn(String doc, String name) {
        Matcher m = MARKED.matcher(doc);
        while (m.find()) {
            if (m.group(2).equals(name)) {
                return m.group(3);
            }
        }
        return "";
    }

    /**
     * For a partial run: the goals this run did not measure keep their rows of an earlier {@code goals} table (matched
     * by the goal's text), so the table still shows every goal.
     *
     * @return how many rows of the merged table say met
     */
    int keepUnmeasuredGoals(List<Goal> goals, String earlierTable) {
        Map<String, String> earlier = new LinkedHashMap<>();
        for (String line : earlierTable.lines().toList()) {
            if (line.startsWith("| ") && !line.startsWith("| goal |")) {
                earlier.put(line.substring(2, line.indexOf(" |")), line);
            }
        }
        StringBuilder merged = new StringBuilder();
        int met = 0;
        for (String line : tables.get("goals").lines().toList()) {
            String row = line;
            if (line.startsWith("| ") && line.endsWith("| not measured |")) {
                row = earlier.getOrDefault(line.substring(2, line.indexOf(" |")), line);
            }
            met += row.endsWith("| met |") ? 1 : 0;
            merged.append(row).append('\n');
        }
        tables.put("goals", merged.toString());
        return met;
    }
}
