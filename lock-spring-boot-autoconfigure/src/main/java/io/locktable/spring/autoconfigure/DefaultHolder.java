package io.locktable.spring.autoconfigure;

import io.locktable.LockTableOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.core.env.Environment;

/** The default readable holder name: {@code <spring.application.name>@<host>/<pid>}. */
final class DefaultHolder {

    private DefaultHolder() {}

    static String of(Environment environment) {
        String application =
                environment.getProperty("spring.application.name", "").trim();
        String holder = (application.isEmpty() ? "" : application + "@") + host() + "/"
                + ProcessHandle.current().pid();
        int max = LockTableOptions.MAX_HOLDER_LENGTH;
        return holder.length() > max ? holder.substring(0, max) : holder;
    }

    private static String host() {
        for (String variable : new String[] {"HOSTNAME", "COMPUTERNAME"}) {
            String value = System.getenv(variable);
            if (value != null && !value.isBlank()) {
                return value.trim();
            }
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
