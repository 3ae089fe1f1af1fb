package io.locktable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The rules for table, key attribute and lock names, where they live. No engine. */
class LockTableNamesTest {

    @ParameterizedTest
    @ValueSource(strings = {"abc", "Shop", "orders.locks-v2", "a_b", "0.9"})
    void tableNamesOfThreeTo255AllowedCharactersPass(String name) {
        assertThat(LockTableNames.checkTableName(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "ab", "my locks", "orders/locks", "tablé", " Shop"})
    void tableNamesOutsideTheRuleAreRefusedSayingTheRuleAndTheName(String name) {
        assertThatThrownBy(() -> LockTableNames.checkTableName(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "tableName must be 3 to 255 characters of a-z, A-Z, 0-9, '_', '-' and '.', was '" + name + "'");
    }

    @Test
    void aTableNameOf255CharactersPassesAndOneOver255OrNullIsRefused() {
        assertThat(LockTableNames.checkTableName("t".repeat(255))).hasSize(255);
        assertThatThrownBy(() -> LockTableNames.checkTableName("t".repeat(256)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockTableNames.checkTableName(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageEndingWith("was 'null'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"pk", "sk", "PK", "id", "lock key", "_id", "Owner"})
    void keyAttributesThatAreNotBlankNorALockAttributePass(String name) {
        assertThat(LockTableNames.checkKeyAttribute(name)).isEqualTo(name);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "''     | key attribute must be 1 to 255 characters, not blank, was ''",
                "'  '   | key attribute must be 1 to 255 characters, not blank, was '  '",
                "owner  | key attribute 'owner' is the name of one of the lock item's own attributes",
                "fence  | key attribute 'fence' is the name of one of the lock item's own attributes",
                "_type  | key attribute '_type' is the name of one of the lock item's own attributes",
                "holder | key attribute 'holder' is the name of one of the lock item's own attributes"
            })
    void keyAttributesThatAreBlankOrALockAttributeAreRefusedSayingWhy(String name, String message) {
        assertThatThrownBy(() -> LockTableNames.checkKeyAttribute(name))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void everyLockAttributeIsRefusedAsAKeyAndSoIsANameOver255CharactersOrNull() {
        assertThat(LockTableNames.checkKeyAttribute("k".repeat(255))).hasSize(255);
        for (String attribute : LockTableOptions.RESERVED_ATTRIBUTES) {
            assertThatThrownBy(() -> LockTableNames.checkKeyAttribute(attribute))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("the table's keys need other names");
        }
        assertThatThrownBy(() -> LockTableNames.checkKeyAttribute("k".repeat(256)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockTableNames.checkKeyAttribute(null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theBuilderNamesTheRoleOfAKeyItRefuses() {
        assertThatThrownBy(() -> LockTableNames.checkKeyAttribute("sortKey", "rvn"))
                .hasMessageStartingWith("sortKey 'rvn' is the name of one of the lock item's own attributes");
    }

    @Test
    void aLockNameFitsWhileItsKeyHasAtMost2048BytesInUtf8() {
        assertThat(LockTableNames.checkLockName("tenant/42/report")).isEqualTo("tenant/42/report");
        assertThat(LockTableNames.checkLockName("x".repeat(2043))).hasSize(2043); // LOCK# + 2043 = 2048 bytes
        assertThatThrownBy(() -> LockTableNames.checkLockName("x".repeat(2044)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock name is too long: its key LOCK#<name> has 2049 bytes, DynamoDB allows 2048");
        assertThatThrownBy(() -> LockTableNames.checkLockName("é".repeat(1022))) // 2 bytes each: 5 + 2044
                .hasMessageContaining("2049 bytes");
        assertThatThrownBy(() -> LockTableNames.checkLockName(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock name must not be null or empty");
        assertThatThrownBy(() -> LockTableNames.checkLockName(null)).isInstanceOf(IllegalArgumentException.class);
    }
}
