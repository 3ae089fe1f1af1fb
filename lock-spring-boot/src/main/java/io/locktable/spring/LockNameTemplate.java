package io.locktable.spring;

import io.locktable.LockTableNames;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.ParserContext;
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * A {@link LockedRun} name with {@code #{...}} parts, such as {@code report-#{#region}}: SpEL over the method's
 * arguments, parsed at startup and evaluated per call. {@code parts} are the literal texts and the expressions, in
 * order, each checked on its own; {@code where} names the method for messages.
 */
record LockNameTemplate(String template, Expression[] parts, Method method, String where) {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    /** Whether a name, its placeholders resolved, has expression parts. */
    static boolean isTemplate(String name) {
        return name.contains("#{");
    }

    /**
     * Parses a name with expression parts over the arguments of a method.
     *
     * @throws MethodDeclarationException if an expression cannot be parsed
     */
    static LockNameTemplate parse(String template, Method method, String where) {
        try {
            Expression parsed = PARSER.parseExpression(template, ParserContext.TEMPLATE_EXPRESSION);
            Expression[] parts = parsed instanceof CompositeStringExpression composite
                    ? composite.getExpressions()
                    : new Expression[] {parsed};
            return new LockNameTemplate(template, parts, method, where);
        } catch (ParseException e) {
            throw new MethodDeclarationException(
                    "@LockedRun method " + where + " has the name '" + template + "', whose expression cannot be"
                            + " parsed: " + e.getMessage(),
                    "Write each #{...} part as a SpEL expression over the method's arguments, such as"
                            + " \"report-#{#region}\" (or #p0, #a0 for the first argument).",
                    e);
        }
    }

    /**
     * The lock name of a call.
     *
     * @throws IllegalArgumentException naming the method, the template and the value, if a part fails or gives null
     *     or an empty text (SpEL's template would append nothing), or the whole cannot be a lock's name
     */
    String evaluate(@Nullable Object target, @Nullable Object[] arguments) {
        EvaluationContext context =
                new MethodBasedEvaluationContext(new Root(target, arguments), method, arguments, PARAMETER_NAMES);
        StringBuilder name = new StringBuilder();
        for (Expression part : parts) {
            String value;
            try {
                value = part.getValue(context, String.class);
            } catch (EvaluationException e) {
                throw new IllegalArgumentException(failure(part, "failed: " + e.getMessage()), e);
            }
            if (value == null || value.isEmpty()) {
                throw new IllegalArgumentException(failure(part, "gave " + (value == null ? "null" : "an empty text")));
            }
            name.append(value);
        }
        try {
            return LockTableNames.checkLockName(name.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "@LockedRun method " + where + ": its lock name '" + template + "' gave '" + name
                            + "', which cannot be a lock's name: " + e.getMessage() + "; the call did not run",
                    e);
        }
    }

    private String failure(Expression part, String what) {
        String hint = PARAMETER_NAMES.getParameterNames(method) != null
                ? ""
                : " (the method's parameter names are not compiled in: read the arguments by position, #p0 or #a0,"
                        + " or compile with javac -parameters)";
        return "@LockedRun method " + where + ": in its lock name '" + template + "', #{" + part.getExpressionString()
                + "} " + what + hint + "; the call did not run";
    }

    /**
     * The root object of the expressions, with getters for SpEL.
     *
     * @param target the bean, {@code #root.target}
     * @param args the arguments of the call, {@code #root.args}
     */
    public record Root(@Nullable Object target, @Nullable Object[] args) {

        /** {@return the bean} */
        public @Nullable Object getTarget() {
            return target;
        }

        /** {@return the arguments of the call} */
        public @Nullable Object[] getArgs() {
            return args;
        }
    }
}
