package io.locktable.spring.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A small evaluator of the PromQL forms the alert rules of {@code docs/observability.md} use, over scrapes of a
 * {@code PrometheusMeterRegistry} taken at times the test chooses: a selector with {@code =} and {@code !=} matchers,
 * {@code increase(selector[range])}, {@code sum}, {@code max}, {@code min} and {@code count} with an optional {@code
 * by (labels)}, and a comparison with a number, which keeps the series it holds for. {@code increase} is the sum of the
 * rises between the samples in its range, a drop counting as a reset, without Prometheus's extrapolation to the
 * range's edges (a rule's {@code > 0} holds for the same series); like Prometheus, a series with a single sample in
 * the range has no increase. Anything else fails with the text it could not read.
 */
final class PromQl {

    /** One scrape: when it was taken (seconds from the test's start) and its series by name, then by labels. */
    private record Scrape(long at, Map<String, Map<Map<String, String>, Double>> series) {}

    private final List<Scrape> scrapes = new ArrayList<>();

    /**
     * Adds a scrape, in the Prometheus text format.
     *
     * @param at when it was taken, in seconds, after those added before
     * @param text the scrape
     */
    void scrape(long at, String text) {
        if (!scrapes.isEmpty() && at <= scrapes.get(scrapes.size() - 1).at()) {
            throw new IllegalArgumentException("scrapes come in order of time");
        }
        Map<String, Map<Map<String, String>, Double>> series = new HashMap<>();
        text.lines().filter(line -> !line.isBlank() && !line.startsWith("#")).forEach(line -> {
            Sample sample = new Reader(line).sample();
            series.computeIfAbsent(sample.name(), name -> new HashMap<>()).put(sample.labels(), sample.value());
        });
        scrapes.add(new Scrape(at, series));
    }

    /**
     * Evaluates an expression at the time of the last scrape.
     *
     * @param expression the expression
     * @return its series, by their labels; empty when none
     */
    Map<Map<String, String>, Double> evaluate(String expression) {
        if (scrapes.isEmpty()) {
            throw new IllegalStateException("no scrape yet");
        }
        Reader reader = new Reader(expression);
        Node node = reader.expression();
        reader.end();
        return node.at(scrapes.get(scrapes.size() - 1).at());
    }

    private interface Node {
        Map<Map<String, String>, Double> at(long now);
    }

    private record Sample(String name, Map<String, String> labels, double value) {}

    private record Matcher(String label, boolean equal, String value) {
        boolean matches(Map<String, String> labels) {
            return labels.getOrDefault(label, "").equals(value) == equal;
        }
    }

    /** A recursive-descent reader of one expression, or of one line of a scrape. */
    private final class Reader {
        private final String text;
        private int at;

        Reader(String text) {
            this.text = text;
        }

        Sample sample() {
            String name = identifier();
            Map<String, String> labels = new TreeMap<>();
            skipSpaces();
            if (peek('{')) {
                at++;
                while (!peek('}')) {
                    String label = identifier();
                    expect("=");
                    labels.put(label, string());
                    skipSpaces();
                    if (peek(',')) {
                        at++;
                    }
                }
                at++;
            }
            skipSpaces();
            String value = text.substring(at).trim().split("\\s+")[0];
            return new Sample(name, labels, parseValue(value));
        }

        Node expression() {
            Node left = operand();
            skipSpaces();
            for (String op : new String[] {"==", "!=", ">=", "<=", ">", "<"}) {
                if (text.startsWith(op, at)) {
                    at += op.length();
                    double bound = number();
                    return now -> compare(left.at(now), op, bound);
                }
            }
            return left;
        }

        void end() {
            skipSpaces();
            if (at != text.length()) {
                throw unreadable();
            }
        }

        private Node operand() {
            skipSpaces();
            int start = at;
            String word = identifier();
            skipSpaces();
            switch (word) {
                case "sum", "max", "min", "count" -> {
                    List<String> by = new ArrayList<>();
                    if (text.startsWith("by", at)) {
                        at += 2;
                        expect("(");
                        do {
                            skipSpaces();
                            by.add(identifier());
                            skipSpaces();
                        } while (peek(',') && at++ >= 0);
                        expect(")");
                    }
                    expect("(");
                    Node inner = expression();
                    expect(")");
                    return now -> aggregate(word, by, inner.at(now));
                }
                case "increase" -> {
                    expect("(");
                    skipSpaces();
                    String name = identifier();
                    List<Matcher> matchers = matchers();
                    expect("[");
                    long range = duration();
                    expect("]");
                    expect(")");
                    return now -> increase(name, matchers, now, range);
                }
                default -> {
                    at = start;
                    String name = identifier();
                    List<Matcher> matchers = matchers();
                    return now -> latest(name, matchers, now);
                }
            }
        }

        private List<Matcher> matchers() {
            List<Matcher> matchers = new ArrayList<>();
            skipSpaces();
            if (!peek('{')) {
                return matchers;
            }
            at++;
            while (true) {
                skipSpaces();
                if (peek('}')) {
                    at++;
                    return matchers;
                }
                String label = identifier();
                skipSpaces();
                boolean equal = !text.startsWith("!=", at);
                expect(equal ? "=" : "!=");
                matchers.add(new Matcher(label, equal, string()));
                skipSpaces();
                if (peek(',')) {
                    at++;
                }
            }
        }

        private long duration() {
            skipSpaces();
            int start = at;
            while (at < text.length() && Character.isDigit(text.charAt(at))) {
                at++;
            }
            long amount = Long.parseLong(text.substring(start, at));
            char unit = text.charAt(at++);
            return switch (unit) {
                case 's' -> amount;
                case 'm' -> Duration.ofMinutes(amount).toSeconds();
                case 'h' -> Duration.ofHours(amount).toSeconds();
                default -> throw unreadable();
            };
        }

        private String identifier() {
            skipSpaces();
            int start = at;
            while (at < text.length()
                    && (Character.isLetterOrDigit(text.charAt(at))
                            || text.charAt(at) == '_'
                            || text.charAt(at) == ':')) {
                at++;
            }
            if (start == at) {
                throw unreadable();
            }
            return text.substring(start, at);
        }

        private String string() {
            skipSpaces();
            expect("\"");
            StringBuilder value = new StringBuilder();
            while (text.charAt(at) != '"') {
                char c = text.charAt(at++);
                if (c == '\\') {
                    char escaped = text.charAt(at++);
                    value.append(escaped == 'n' ? '\n' : escaped);
                } else {
                    value.append(c);
                }
            }
            at++;
            return value.toString();
        }

        private double number() {
            skipSpaces();
            int start = at;
            while (at < text.length() && !Character.isWhitespace(text.charAt(at)) && text.charAt(at) != ')') {
                at++;
            }
            return parseValue(text.substring(start, at));
        }

        private void expect(String token) {
            skipSpaces();
            if (!text.startsWith(token, at)) {
                throw unreadable();
            }
            at += token.length();
        }

        private boolean peek(char c) {
            return at < text.length() && text.charAt(at) == c;
        }

        private void skipSpaces() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }

        private IllegalArgumentException unreadable() {
            return new IllegalArgumentException("cannot read at " + at + ": " + text.substring(0, at) + " ⟨here⟩ "
                    + text.substring(Math.min(at, text.length())));
        }
    }

    private static double parseValue(String value) {
        return switch (value) {
            case "NaN" -> Double.NaN;
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(value);
        };
    }

    /** The series of a name at the last scrape at or before now; none when the name is not in it. */
    private Map<Map<String, String>, Double> latest(String name, List<Matcher> matchers, long now) {
        Scrape last = null;
        for (Scrape scrape : scrapes) {
            if (scrape.at() <= now) {
                last = scrape;
            }
        }
        Map<Map<String, String>, Double> result = new LinkedHashMap<>();
        if (last != null) {
            last.series().getOrDefault(name, Map.of()).forEach((labels, value) -> {
                if (matchers.stream().allMatch(m -> m.matches(labels))) {
                    result.put(labels, value);
                }
            });
        }
        return result;
    }

    private Map<Map<String, String>, Double> increase(String name, List<Matcher> matchers, long now, long range) {
        Map<Map<String, String>, List<Double>> samples = new LinkedHashMap<>();
        for (Scrape scrape : scrapes) {
            if (scrape.at() > now - range && scrape.at() <= now) {
                scrape.series().getOrDefault(name, Map.of()).forEach((labels, value) -> {
                    if (matchers.stream().allMatch(m -> m.matches(labels))) {
                        samples.computeIfAbsent(labels, l -> new ArrayList<>()).add(value);
                    }
                });
            }
        }
        Map<Map<String, String>, Double> result = new LinkedHashMap<>();
        samples.forEach((labels, values) -> {
            if (values.size() < 2) {
                return; // as in Prometheus: one sample has no increase
            }
            double rise = 0;
            for (int i = 1; i < values.size(); i++) {
                double step = values.get(i) - values.get(i - 1);
                rise += step >= 0 ? step : values.get(i); // a drop is a reset: counted from zero
            }
            result.put(labels, rise);
        });
        return result;
    }

    private static Map<Map<String, String>, Double> aggregate(
            String how, List<String> by, Map<Map<String, String>, Double> series) {
        Map<Map<String, String>, List<Double>> groups = new LinkedHashMap<>();
        series.forEach((labels, value) -> {
            Map<String, String> group = new TreeMap<>();
            by.forEach(label -> {
                if (labels.containsKey(label)) {
                    group.put(label, labels.get(label));
                }
            });
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(value);
        });
        Map<Map<String, String>, Double> result = new LinkedHashMap<>();
        groups.forEach((group, values) -> result.put(
                group,
                switch (how) {
                    case "sum" ->
                        values.stream().mapToDouble(Double::doubleValue).sum();
                    case "max" ->
                        values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                    case "min" ->
                        values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
                    default -> (double) values.size();
                }));
        return result;
    }

    private static Map<Map<String, String>, Double> compare(
            Map<Map<String, String>, Double> series, String op, double bound) {
        Map<Map<String, String>, Double> result = new LinkedHashMap<>();
        series.forEach((labels, value) -> {
            boolean holds = switch (op) {
                case "==" -> value == bound;
                case "!=" -> value != bound;
                case ">=" -> value >= bound;
                case "<=" -> value <= bound;
                case ">" -> value > bound;
                default -> value < bound;
            };
            if (holds) {
                result.put(labels, value);
            }
        });
        return result;
    }
}
