package io.locktable.shedlock.autoconfigure;

import io.locktable.LockTable;
import io.locktable.shedlock.LockTableLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * ShedLock's {@link LockProvider} over the context's {@link LockTable}: with {@code lock-shedlock}, ShedLock and the
 * LockTable starter on the class path, {@code @SchedulerLock} jobs run under LockTable leases with no bean to write.
 * It backs off when the context defines a {@code LockProvider} of its own, when the context has no single {@code
 * LockTable}, and with {@code locktable.enabled=false}. When it backs off for a {@code LockProvider} of the
 * application's while a {@code LockTable} is there, one INFO line at startup names the bean that wins and what to
 * delete to switch. ShedLock's {@code @EnableSchedulerLock} is still needed, as with any provider.
 */
@AutoConfiguration(afterName = "io.locktable.spring.autoconfigure.LockTableAutoConfiguration")
@ConditionalOnClass(LockProvider.class)
@ConditionalOnBooleanProperty(name = "locktable.enabled", matchIfMissing = true)
public final class LockTableShedLockAutoConfiguration {

    LockTableShedLockAutoConfiguration() {}

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    @ConditionalOnSingleCandidate(LockTable.class)
    LockTableLockProvider lockTableLockProvider(LockTable lockTable) {
        return new LockTableLockProvider(lockTable);
    }

    @Bean
    static UserLockProviderNotice lockTableShedLockUserProviderNotice(ListableBeanFactory beans) {
        return new UserLockProviderNotice(beans);
    }
}
