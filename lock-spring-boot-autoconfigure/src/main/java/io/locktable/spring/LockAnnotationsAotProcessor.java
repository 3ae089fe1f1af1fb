package io.locktable.spring;

import java.lang.reflect.Method;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.util.ClassUtils;

/**
 * The reflection hints a native image needs for beans with {@link LeaderOnly} or {@link LockedRun} methods: their
 * types and annotations (read at startup), the methods (called by the proxy), and the root object of {@code #{...}}
 * lock names (SpEL reads its getters; an expression that calls methods of an argument needs hints of its own).
 * Registered in {@code META-INF/spring/aot.factories}.
 */
final class LockAnnotationsAotProcessor implements BeanRegistrationAotProcessor {

    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
        Class<?> type = ClassUtils.getUserClass(registeredBean.getBeanClass());
        Map<Method, MergedAnnotation<?>> methods = AnnotatedMethods.annotated(type);
        if (methods.isEmpty()) {
            return null;
        }
        return (generationContext, code) -> {
            ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
            reflection.registerType(type);
            methods.forEach((method, annotation) -> {
                reflection.registerMethod(method, ExecutableMode.INVOKE);
                annotation.getMetaTypes().forEach(reflection::registerType);
                reflection.registerType(annotation.getRoot().getType());
                if (LockNameTemplate.isTemplate(annotation.getString("name"))) {
                    reflection.registerType(LockNameTemplate.Root.class, MemberCategory.INVOKE_PUBLIC_METHODS);
                }
            });
        };
    }
}
