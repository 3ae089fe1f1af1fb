package io.locktable.bench;

import java.util.List;

/** Builds the Markdown of {@code docs/benchmarks.md}. */
public final class Markdown {

    private final StringBuilder text = new StringBuilder();

    /**
     * Adds a heading.
     *
     * @param level 1 to 4
     * @param title the title
     * @return this
     */
    public Markdown heading(int level, String title) {
        text.append("#".repeat(level)).append(' ').append(title).append("\n\n");
        return this;
    }

    /**
     * Adds a paragraph.
     *
     * @param paragraph the text, Markdown
     * @return this
     */
    public Markdown paragraph(String paragraph) {
        text.append(paragraph.strip()).append("\n\n");
        return this;
    }

    /**
     * Adds a bulleted list.
     *
     * @param items the items
     * @return this
     */
    public Markdown bullets(List<String> items) {
        for (String item : items) {
            text.append("- ").append(item).append('\n');
        }
        text.append('\n');
        return this;
    }

    /**
     * Adds a fenced code block.
     *
     * @param language the language tag
     * @param code the code
     * @return this
     */
    public Markdown code(String language, String code) {
        text.append("```").append(language).append('\n').append(code.strip()).append("\n```\n\n");
        return this;
    }

    /**
     * Adds a table.
     *
     * @param headers the column headers
     * @param rows the rows, each as long as the headers
     * @return this
     */
    public Markdown table(List<String> headers, List<List<String>> rows) {
        row(headers);
        text.append('|');
        for (int i = 0; i < headers.size(); i++) {
            text.append("---|");
        }
        text.append('\n');
        for (List<String> row : rows) {
            if (row.size() != headers.size()) {
                throw new IllegalArgumentException("row " + row + " does not match headers " + headers);
            }
            row(row);
        }
        text.append('\n');
        return this;
    }

    /**
     * Appends another document.
     *
     * @param other the other document
     * @return this
     */
    public Markdown append(Markdown other) {
        text.append(other.text);
        return this;
    }

    private void row(List<String> cells) {
        text.append('|');
        for (String cell : cells) {
            text.append(' ').append(cell.replace("|", "\\|")).append(" |");
        }
        text.append('\n');
    }

    @Override
    public String toString() {
        return text.toString();
    }
}
