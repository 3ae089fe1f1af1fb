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
import org.springframework.expression.common.CompositeStringExpression;
import org.springframework.expression.common.TemplateParserContext;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * A {@link LockedRun} name with {@code #{...}} parts, such as {@code report-#{#region}}: SpEL over the method's
 * arguments, parsed once when the declaration is read (at startup) and evaluated per call.
 */
final class LockNameTemplate {

    private static final String PREFIX = "#{";
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final TemplateParserContext TEMPLATE = new TemplateParserContext(PREFIX, "}");
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final String template;
    /** The literal texts and the expressions, in order: each expression is checked on its own. */
    private final Expression[] parts;

    private final Method method;
    private final String where;

    private LockNameTemplate(String template, Expression expression, Method method, String where) {
        this.template = template;
        this.parts = expression instanceof CompositeStringExpression composite
                ? composite.getExpressions()
                : new Expression[] {expression};
        this.method = method;
        this.where = where;
    }

    /** Whether a name, its placeholders resolved, has expression parts. */
    static boolean isTemplate(String name) {
        return name.contains(PREFIX);
    }

    /**
     * Parses a name with expression parts.
     *
     * @param template the name, its placeholders resolved
     * @param method the method whose arguments the parts read, with its parameter names when compiled in
     * @param where the method, for messages
     * @throws MethodDeclarationException if an expression cannot be parsed
     */
    static LockNameTemplate parse(String template, Method method, String where) {
        try {
            return new LockNameTemplate(template, PARSER.parseExpression(template, TEMPLATE), method, where);
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
     * The lock name of a call: every part evaluated against the call's arguments, the whole checked as a lock name.
     *
     * @param target the bean, {@code #root.target}
     * @param arguments the call's arguments
     * @throws IllegalArgumentException if a part fails or gives null or an empty text, or the name cannot be a
     *     lock's; the message names the method, the template and the value
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
                throw new IllegalArgumentException(
                        failure(part, "failed: " + e.getMessage() + parameterNamesHint()), e);
            }
            if (value == null || value.isEmpty()) {
                // SpEL's template would append nothing for a null: "report-" for every call of a misspelt #regoin
                throw new IllegalArgumentException(
                        failure(part, "gave " + (value == null ? "null" : "an empty text") + parameterNamesHint()));
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
        return "@LockedRun method " + where + ": in its lock name '" + template + "', " + PREFIX
                + part.getExpressionString() + "} " + what + "; the call did not run";
    }

    /** Why {@code #region} may read nothing: the parameter names were not compiled in. */
    private String parameterNamesHint() {
        return PARAMETER_NAMES.getParameterNames(method) == null
                ? " (the method's parameter names are not compiled in: read the arguments by position, #p0 or #a0,"
                        + " or compile with javac -parameters)"
                : "";
    }

    @Override
    public String toString() {
        return template;
    }

    /**
     * The root object of the expressions: {@code #root.target} is the bean, {@code #root.args} the arguments.
     * Public, with getters, for SpEL's property access.
     */
    public static final class Root {
        private final @Nullable Object target;
        private final @Nullable Object[] args;

        Root(@Nullable Object target, @Nullable Object[] args) {
            this.target = target;
            this.args = args;
        }

        /**
         * The bean whose method is called.
         *
         * @return the bean
         */
        public @Nullable Object getTarget() {
            return target;
        }

        /**
         * The arguments of the call.
         *
         * @return the arguments
         */
        public @Nullable Object[] getArgs() {
            return args;
        }
    }
}
