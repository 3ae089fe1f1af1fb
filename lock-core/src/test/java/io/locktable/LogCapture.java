package io.locktable;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Captures what lock-core logs while it is open, to check that a case logs no warning, or one error. */
final class LogCapture implements AutoCloseable {

    private final Logger logger = (Logger) LoggerFactory.getLogger(LockTable.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    LogCapture() {
        appender.start();
        logger.addAppender(appender);
    }

    /** The messages logged at the given level or above, formatted. */
    List<String> atLeast(Level level) {
        return appender.list.stream()
                .filter(event -> event.getLevel().isGreaterOrEqual(level))
                .map(ILoggingEvent::getFormattedMessage)
                .toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
