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
 * Ahead-of-time processing for {@link LeaderOnly} and {@link LockedRun}: for each bean with such methods, the
 * reflection hints a native image needs at runtime, when the advisors read those methods at startup and the proxy
 * calls them, and SpEL's access to the root object of a {@code @LockedRun} name with {@code #{...}} parts (the
 * arguments themselves are variables, read without reflection; an expression that calls methods of an argument's
 * type needs hints for that type, as any SpEL in a native image does). Registered in {@code META-INF/spring/aot.factories}.
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
            reflection.registerType(type); // its methods are read at startup
            methods.forEach((method, annotation) -> {
                reflection.registerMethod(method, ExecutableMode.INVOKE);
                annotation.getMetaTypes().forEach(reflection::registerType);
                reflection.registerType(annotation.getRoot().getType());
                if (annotation.getType() == LockedRun.class
                        && LockNameTemplate.isTemplate(annotation.getString("name"))) {
                    // #root.target and #root.args: SpEL reads the root object's getters by reflection
                    reflection.registerType(LockNameTemplate.Root.class, MemberCategory.INVOKE_PUBLIC_METHODS);
                }
            });
        };
    }
}
