package io.locktable.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.util.VersionInfo;

/**
 * What the report says about the run itself: when, how long, on what, with which versions, and the load.
 *
 * @param command the command that produced the report
 * @param started when the run started
 * @param took how long it took
 * @param loadBefore the 1-minute load average at the start
 * @param loadAfter the 1-minute load average at the end
 * @param engine the engine description
 */
public record RunInfo(
        String command, Instant started, Duration took, double loadBefore, double loadAfter, String engine) {

    /**
     * The versions that matter, for the report.
     *
     * @return one line per component
     */
    public String versions() {
        return String.join(
                "\n",
                "- LockTable `lock-core` " + property("bench.version", "0.1.0-SNAPSHOT") + ", commit "
                        + property("bench.commit", "unknown"),
                "- AWS DynamoDB Lock Client `com.amazonaws:dynamodb-lock-client:" + peerVersion() + "`",
                "- AWS SDK for Java v2 " + VersionInfo.SDK_VERSION
                        + ", HTTP client `apache5-client` (the SDK's default),"
                        + " the same client settings for both libraries",
                "- JMH " + jmhVersion(),
                "- dynalite " + dynaliteVersion() + " on Node.js " + Machine.commandOutput("node", "--version")
                        + " (in memory, one process)",
                "- Java " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
    }

    private static String property(String name, String fallback) {
        String value = System.getProperty(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    static String peerVersion() {
        try (InputStream in = RunInfo.class.getResourceAsStream(
                "/META-INF/maven/com.amazonaws/dynamodb-lock-client/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static String jmhVersion() {
        String version = org.openjdk.jmh.util.Version.getPlainVersion();
        return version == null ? "unknown" : version;
    }

    private static String dynaliteVersion() {
        try (InputStream in = RunInfo.class.getResourceAsStream("/io/locktable/test/dynalite/package.json")) {
            if (in == null) {
                return "unknown";
            }
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Matcher matcher =
                    Pattern.compile("\"dynalite\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
            return matcher.find() ? matcher.group(1) : "unknown";
        } catch (IOException e) {
            return "unknown";
        }
    }
}
