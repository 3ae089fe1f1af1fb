package io.locktable.spring.autoconfigure;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.springframework.core.env.Environment;

/** The default readable holder name: {@code <spring.application.name>@<host>/<pid>}. */
final class DefaultHolder {

    private static final int MAX_LENGTH = 256;

    private DefaultHolder() {}

    static String of(Environment environment) {
        String application =
                environment.getProperty("spring.application.name", "").trim();
        String holder = (application.isEmpty() ? "" : application + "@") + host() + "/"
                + ProcessHandle.current().pid();
        return holder.length() > MAX_LENGTH ? holder.substring(0, MAX_LENGTH) : holder;
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
