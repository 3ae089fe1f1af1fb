package io.locktable.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** Runs the failure analyzers registered in {@code META-INF/spring.factories}, as Spring Boot does at startup. */
final class Analyses {

    private Analyses() {}

    static List<FailureAnalyzer> registered() {
        // Boot's own analyzers need constructor arguments that only SpringApplication gives: skip those
        return SpringFactoriesLoader.forDefaultResourceLocation(Analyses.class.getClassLoader())
                .load(FailureAnalyzer.class, null, SpringFactoriesLoader.FailureHandler.handleMessage((m, e) -> {}));
    }

    /** The registered analyzers, given the bean factory of the failed context as Spring Boot gives it. */
    static List<FailureAnalyzer> registered(BeanFactory beanFactory) {
        return SpringFactoriesLoader.forDefaultResourceLocation(Analyses.class.getClassLoader())
                .load(
                        FailureAnalyzer.class,
                        SpringFactoriesLoader.ArgumentResolver.of(BeanFactory.class, beanFactory),
                        SpringFactoriesLoader.FailureHandler.handleMessage((m, e) -> {}));
    }

    /** The analysis of the first registered LockTable analyzer that recognises the failure. */
    static FailureAnalysis of(Throwable failure) {
        return of(failure, registered());
    }

    /**
     * The analysis of the first registered LockTable analyzer that recognises the failure, those that need the bean
     * factory of the failed context included.
     */
    static FailureAnalysis of(Throwable failure, BeanFactory beanFactory) {
        return of(failure, registered(beanFactory));
    }

    private static FailureAnalysis of(Throwable failure, List<FailureAnalyzer> analyzers) {
        for (FailureAnalyzer analyzer : analyzers) {
            if (!analyzer.getClass().getName().startsWith("io.locktable.")) {
                continue;
            }
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        assertThat(failure).as("a failure a LockTable analyzer recognises").isNull();
        return null;
    }
}
