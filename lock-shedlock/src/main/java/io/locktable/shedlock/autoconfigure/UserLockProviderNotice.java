package io.locktable.shedlock.autoconfigure;

import io.locktable.LockTable;
import io.locktable.shedlock.LockTableLockProvider;
import java.util.ArrayList;
import java.util.List;
import net.javacrumbs.shedlock.core.LockProvider;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Says at startup, in one INFO line, that the auto-configuration backed off for a {@link LockProvider} of the
 * application's own: adding {@code lock-shedlock} while the old provider's bean stays changes nothing, and without a
 * word the jobs would go on locking in the old store. Once the singletons exist, so that the beans' actual classes are
 * known; says nothing when a provider is LockTable's.
 */
final class UserLockProviderNotice implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockTableShedLockAutoConfiguration.class);

    private final ListableBeanFactory beans;

    UserLockProviderNotice(ListableBeanFactory beans) {
        this.beans = beans;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> others = new ArrayList<>();
        for (String name : beans.getBeanNamesForType(LockProvider.class, false, false)) {
            Class<?> type = beans.getType(name);
            if (type != null && LockTableLockProvider.class.isAssignableFrom(type)) {
                return; // the jobs lock through LockTable already, whoever declared the bean
            }
            others.add("'" + name + "' (" + (type == null ? "of unknown type" : type.getName()) + ")");
        }
        LockTable lockTable = beans.getBeanProvider(LockTable.class).getIfUnique();
        if (others.isEmpty() || lockTable == null) {
            return; // no provider of the user's, or no LockTable to switch to: the back-off is not the user's doing
        }
        log.info(message(others, lockTable.tableName()));
    }

    static String message(List<String> providers, @Nullable String tableName) {
        return "LockTable's ShedLock provider backs off: @SchedulerLock jobs lock through your LockProvider bean"
                + (providers.size() > 1 ? "s " : " ") + String.join(", ", providers)
                + ", not through LockTable's table '" + tableName + "'. To switch to LockTable, delete "
                + (providers.size() > 1 ? "those beans" : "that bean") + " (and its provider's dependency);"
                + " lock-shedlock then provides the LockProvider over the starter's LockTable, which needs"
                + " locktable.table-name (and locktable.dynamodb.region, or locktable.dynamodb.endpoint for a local"
                + " engine). To stay on your provider, remove lock-shedlock.";
    }
}
