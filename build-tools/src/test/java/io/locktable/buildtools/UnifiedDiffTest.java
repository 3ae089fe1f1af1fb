package io.locktable.buildtools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class UnifiedDiffTest {

    @Test
    void equalTextsHaveNoDiff() {
        assertThat(UnifiedDiff.of("a", List.of("x", "y"), "b", List.of("x", "y")))
                .isEmpty();
    }

    @Test
    void aChangedLineIsRemovedThenAddedWithThreeLinesOfContext() {
        List<String> before = List.of("1", "2", "3", "4", "5", "6", "7", "8", "9");
        List<String> after = List.of("1", "2", "3", "4", "five", "6", "7", "8", "9");

        assertThat(UnifiedDiff.of("a", before, "b", after))
                .isEqualTo("--- a\n+++ b\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n");
    }

    @Test
    void changesFarApartAreTwoHunks() {
        List<String> before = List.of("a", "1", "2", "3", "4", "5", "6", "7", "8", "b");
        List<String> after = List.of("1", "2", "3", "4", "5", "6", "7", "8", "c");

        assertThat(UnifiedDiff.of("x", before, "y", after))
                .isEqualTo("--- x\n+++ y\n@@ -1,4 +1,3 @@\n-a\n 1\n 2\n 3\n@@ -7,4 +6,4 @@\n 6\n 7\n 8\n-b\n+c\n");
    }
}
