package io.locktable.buildtools;

import java.util.ArrayList;
import java.util.List;

/** A unified diff of two texts, line by line (longest common subsequence), with three lines of context. */
public final class UnifiedDiff {

    private static final int CONTEXT = 3;

    private UnifiedDiff() {}

    /** The diff from {@code before} to {@code after}, empty when they are equal. */
    public static String of(String beforeName, List<String> before, String afterName, List<String> after) {
        int n = before.size();
        int m = after.size();
        int[][] common = new int[n + 1][m + 1];
        for (int i = n - 1; i >= 0; i--) {
            for (int j = m - 1; j >= 0; j--) {
                common[i][j] = before.get(i).equals(after.get(j))
                        ? common[i + 1][j + 1] + 1
                        : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        // The edit script: ' ' kept, '-' removed, '+' added, with the line's index in before and after.
        List<char[]> kinds = new ArrayList<>();
        List<int[]> at = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < n || j < m) {
            if (i < n && j < m && before.get(i).equals(after.get(j))) {
                kinds.add(new char[] {' '});
                at.add(new int[] {i++, j++});
            } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
                kinds.add(new char[] {'-'});
                at.add(new int[] {i++, j});
            } else {
                kinds.add(new char[] {'+'});
                at.add(new int[] {i, j++});
            }
        }
        StringBuilder out = new StringBuilder();
        int k = 0;
        while (k < kinds.size()) {
            if (kinds.get(k)[0] == ' ') {
                k++;
                continue;
            }
            int start = Math.max(0, k - CONTEXT);
            int end = k;
            // extend the hunk while the next change is within twice the context
            while (true) {
                int next = end;
                while (next < kinds.size() && kinds.get(next)[0] != ' ') {
                    next++;
                }
                int gap = next;
                while (gap < kinds.size() && kinds.get(gap)[0] == ' ') {
                    gap++;
                }
                if (gap < kinds.size() && gap - next <= 2 * CONTEXT) {
                    end = gap;
                } else {
                    end = Math.min(kinds.size(), next + CONTEXT);
                    break;
                }
            }
            if (out.length() == 0) {
                out.append("--- ").append(beforeName).append('\n');
                out.append("+++ ").append(afterName).append('\n');
            }
            int beforeStart = at.get(start)[0];
            int afterStart = at.get(start)[1];
            int beforeCount = 0;
            int afterCount = 0;
            StringBuilder hunk = new StringBuilder();
            for (int h = start; h < end; h++) {
                char kind = kinds.get(h)[0];
                String line = kind == '+' ? after.get(at.get(h)[1]) : before.get(at.get(h)[0]);
                hunk.append(kind).append(line).append('\n');
                if (kind != '+') {
                    beforeCount++;
                }
                if (kind != '-') {
                    afterCount++;
                }
            }
            out.append("@@ -")
                    .append(range(beforeStart, beforeCount))
                    .append(" +")
                    .append(range(afterStart, afterCount))
                    .append(" @@\n")
                    .append(hunk);
            k = end;
        }
        return out.toString();
    }

    private static String range(int start, int count) {
        return (count == 0 ? start : start + 1) + "," + count;
    }
}
