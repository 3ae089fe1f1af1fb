package io.locktable.buildtools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;
import org.objectweb.asm.TypePath;
import org.objectweb.asm.TypeReference;
import org.objectweb.asm.signature.SignatureReader;
import org.objectweb.asm.tree.AnnotationNode;
import org.objectweb.asm.tree.ClassNode;
import org.objectweb.asm.tree.FieldNode;
import org.objectweb.asm.tree.InnerClassNode;
import org.objectweb.asm.tree.MethodNode;
import org.objectweb.asm.tree.TypeAnnotationNode;
import org.objectweb.asm.util.TraceSignatureVisitor;

/**
 * The public and protected API of a folder of class files, as text: one block per type a user can see (public or
 * protected, and nested only in such types), its annotations, its members that a user can call, override or read
 * (public, and protected where the type can be extended), with generic signatures, thrown exceptions, annotations
 * (declaration and type-use, with their values), constant values and annotation defaults. Synthetic and bridge members
 * and everything package-private or private are left out. Types, then members, are sorted, so the text depends on the
 * API only, not on the order of the source.
 */
public final class ApiDump {

    private ApiDump() {}

    /** The dump of the class files under {@code classes} (none: an empty dump). */
    public static String of(Path classes) {
        Map<String, ClassNode> nodes = new HashMap<>();
        if (Files.isDirectory(classes)) {
            try (Stream<Path> files = Files.walk(classes)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".class")).collect(Collectors.toList())) {
                    ClassNode node = new ClassNode();
                    new ClassReader(Files.readAllBytes(file))
                            .accept(node, ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
                    nodes.put(node.name, node);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        StringBuilder out = new StringBuilder();
        nodes.values().stream()
                .sorted(Comparator.comparing(node -> node.name))
                .filter(node -> isApi(node, nodes))
                .forEach(node -> type(node, out));
        return out.toString();
    }

    private static boolean isApi(ClassNode node, Map<String, ClassNode> nodes) {
        if (node.name.endsWith("/package-info")) {
            return hasAnnotations(node.visibleAnnotations) || hasAnnotations(node.invisibleAnnotations);
        }
        if ((node.access & Opcodes.ACC_SYNTHETIC) != 0 || node.name.equals("module-info")) {
            return false;
        }
        InnerClassNode inner = innerEntry(node);
        if (inner == null) {
            return (node.access & Opcodes.ACC_PUBLIC) != 0;
        }
        if (inner.outerName == null || inner.innerName == null) {
            return false; // a local or anonymous class
        }
        if ((inner.access & (Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) == 0) {
            return false;
        }
        ClassNode outer = nodes.get(inner.outerName);
        if (outer == null || !isApi(outer, nodes)) {
            return false;
        }
        return (inner.access & Opcodes.ACC_PUBLIC) != 0 || extensible(outer);
    }

    private static InnerClassNode innerEntry(ClassNode node) {
        for (InnerClassNode inner : node.innerClasses) {
            if (inner.name.equals(node.name)) {
                return inner;
            }
        }
        return null;
    }

    /** Whether a subclass outside the package can see the type's protected members. */
    private static boolean extensible(ClassNode node) {
        return (node.access & Opcodes.ACC_FINAL) == 0
                && (node.access & Opcodes.ACC_ENUM) == 0
                && (node.permittedSubclasses == null || node.permittedSubclasses.isEmpty());
    }

    private static void type(ClassNode node, StringBuilder out) {
        if (node.name.endsWith("/package-info")) {
            annotations(node.visibleAnnotations, node.invisibleAnnotations, "", out);
            out.append("package ")
                    .append(dotted(node.name.substring(0, node.name.lastIndexOf('/'))))
                    .append("\n\n");
            return;
        }
        InnerClassNode inner = innerEntry(node);
        int access = inner != null ? inner.access : node.access;
        annotations(node.visibleAnnotations, node.invisibleAnnotations, "", out);
        typeAnnotations(node.visibleTypeAnnotations, node.invisibleTypeAnnotations, "", out);
        StringBuilder header = new StringBuilder();
        header.append((access & Opcodes.ACC_PUBLIC) != 0 ? "public " : "protected ");
        if ((access & Opcodes.ACC_STATIC) != 0) {
            header.append("static ");
        }
        String kind;
        if ((access & Opcodes.ACC_ANNOTATION) != 0) {
            kind = "@interface";
        } else if ((access & Opcodes.ACC_INTERFACE) != 0) {
            kind = "interface";
        } else if ((access & Opcodes.ACC_ENUM) != 0) {
            kind = "enum";
        } else if ((access & Opcodes.ACC_RECORD) != 0 || node.recordComponents != null) {
            kind = "record";
        } else {
            if ((access & Opcodes.ACC_ABSTRACT) != 0) {
                header.append("abstract ");
            }
            if ((access & Opcodes.ACC_FINAL) != 0) {
                header.append("final ");
            }
            kind = "class";
        }
        if (node.permittedSubclasses != null && !node.permittedSubclasses.isEmpty()) {
            header.append("sealed ");
        }
        header.append(kind).append(' ').append(dotted(node.name));
        String signature = node.signature;
        if (signature == null) {
            StringBuilder plain = new StringBuilder();
            plain.append('L')
                    .append(node.superName == null ? "java/lang/Object" : node.superName)
                    .append(';');
            for (String itf : node.interfaces) {
                plain.append('L').append(itf).append(';');
            }
            signature = plain.toString();
        }
        TraceSignatureVisitor trace = new TraceSignatureVisitor(access);
        new SignatureReader(signature).accept(trace);
        String declaration = trace.getDeclaration()
                .replace(" extends java.lang.Object implements ", " implements ")
                .replaceAll(" extends java\\.lang\\.Object$", "");
        if (kind.equals("enum")) {
            declaration = declaration.replaceAll("^ extends java\\.lang\\.Enum<[^>]*>", "");
        } else if (kind.equals("record")) {
            declaration = declaration.replaceAll("^ extends java\\.lang\\.Record", "");
        } else if (kind.equals("@interface")) {
            declaration = declaration.replace(" extends java.lang.annotation.Annotation", "");
        }
        header.append(declaration);
        if (node.permittedSubclasses != null && !node.permittedSubclasses.isEmpty()) {
            header.append(" permits ")
                    .append(node.permittedSubclasses.stream()
                            .map(ApiDump::dotted)
                            .sorted()
                            .collect(Collectors.joining(", ")));
        }
        out.append(header).append(" {\n");

        boolean canExtend = extensible(node);
        node.fields.stream()
                .filter(field -> visible(field.access, canExtend))
                .sorted(Comparator.comparing(field -> field.name))
                .forEach(field -> field(field, out));
        node.methods.stream()
                .filter(method -> visible(method.access, canExtend)
                        && (method.access & (Opcodes.ACC_BRIDGE | Opcodes.ACC_SYNTHETIC)) == 0
                        && !method.name.equals("<clinit>"))
                .sorted(Comparator.comparing((MethodNode method) -> !method.name.equals("<init>"))
                        .thenComparing(method -> method.name)
                        .thenComparing(method -> method.desc))
                .forEach(method -> method(node, method, out));
        out.append("}\n\n");
    }

    private static boolean visible(int access, boolean canExtend) {
        return (access & Opcodes.ACC_SYNTHETIC) == 0
                && ((access & Opcodes.ACC_PUBLIC) != 0 || ((access & Opcodes.ACC_PROTECTED) != 0 && canExtend));
    }

    private static void field(FieldNode field, StringBuilder out) {
        annotations(field.visibleAnnotations, field.invisibleAnnotations, "  ", out);
        StringBuilder line = new StringBuilder("  ");
        line.append(modifiers(field.access, false));
        TraceSignatureVisitor trace = new TraceSignatureVisitor(0);
        new SignatureReader(field.signature != null ? field.signature : field.desc).acceptType(trace);
        line.append(orObject(trace.getDeclaration())).append(' ').append(field.name);
        if (field.value != null) {
            line.append(" = ").append(value(field.value));
        }
        out.append(line).append('\n');
        typeAnnotations(field.visibleTypeAnnotations, field.invisibleTypeAnnotations, "    ", out);
    }

    private static void method(ClassNode owner, MethodNode method, StringBuilder out) {
        annotations(method.visibleAnnotations, method.invisibleAnnotations, "  ", out);
        StringBuilder line = new StringBuilder("  ");
        boolean inInterface = (owner.access & Opcodes.ACC_INTERFACE) != 0;
        line.append(modifiers(method.access, inInterface));
        if (inInterface
                && (method.access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_STATIC | Opcodes.ACC_PRIVATE)) == 0
                && !method.name.startsWith("<")) {
            line.append("default ");
        }
        TraceSignatureVisitor trace = new TraceSignatureVisitor(method.access);
        new SignatureReader(method.signature != null ? method.signature : method.desc).accept(trace);
        String declaration = trace.getDeclaration(); // "<T> (params)" or "(params)"
        int parameters = declaration.indexOf('(');
        String typeParameters = declaration.substring(0, parameters).trim();
        if (!typeParameters.isEmpty()) {
            line.append(typeParameters).append(' ');
        }
        if (method.name.equals("<init>")) {
            line.append(simpleName(owner.name));
        } else {
            line.append(orObject(trace.getReturnType())).append(' ').append(method.name);
        }
        String parameterList = declaration.substring(parameters);
        if ((method.access & Opcodes.ACC_VARARGS) != 0 && parameterList.endsWith("[])")) {
            parameterList = parameterList.substring(0, parameterList.length() - 3) + "...)";
        }
        line.append(parameterList);
        String exceptions = trace.getExceptions();
        if (exceptions != null && !exceptions.isEmpty()) {
            line.append(" throws ").append(exceptions);
        } else if (method.exceptions != null && !method.exceptions.isEmpty()) {
            line.append(" throws ")
                    .append(method.exceptions.stream().map(ApiDump::dotted).collect(Collectors.joining(", ")));
        }
        if (method.annotationDefault != null) {
            line.append(" default ").append(value(method.annotationDefault));
        }
        out.append(line).append('\n');
        parameterAnnotations(method.visibleParameterAnnotations, out);
        parameterAnnotations(method.invisibleParameterAnnotations, out);
        typeAnnotations(method.visibleTypeAnnotations, method.invisibleTypeAnnotations, "    ", out);
    }

    private static String modifiers(int access, boolean inInterface) {
        StringBuilder modifiers = new StringBuilder();
        if ((access & Opcodes.ACC_PUBLIC) != 0) {
            modifiers.append("public ");
        }
        if ((access & Opcodes.ACC_PROTECTED) != 0) {
            modifiers.append("protected ");
        }
        if ((access & Opcodes.ACC_STATIC) != 0) {
            modifiers.append("static ");
        }
        if ((access & Opcodes.ACC_ABSTRACT) != 0 && !inInterface) {
            modifiers.append("abstract ");
        }
        if ((access & Opcodes.ACC_FINAL) != 0) {
            modifiers.append("final ");
        }
        return modifiers.toString();
    }

    private static boolean hasAnnotations(List<AnnotationNode> annotations) {
        return annotations != null && !annotations.isEmpty();
    }

    private static void annotations(
            List<AnnotationNode> visible, List<AnnotationNode> invisible, String indent, StringBuilder out) {
        List<String> lines = new ArrayList<>();
        for (List<AnnotationNode> list : List.of(nonNull(visible), nonNull(invisible))) {
            for (AnnotationNode annotation : list) {
                lines.add(annotation(annotation));
            }
        }
        lines.stream().sorted().forEach(line -> out.append(indent).append(line).append('\n'));
    }

    private static void parameterAnnotations(List<AnnotationNode>[] parameters, StringBuilder out) {
        if (parameters == null) {
            return;
        }
        for (int i = 0; i < parameters.length; i++) {
            for (AnnotationNode annotation : nonNull(parameters[i])) {
                out.append("    parameter ")
                        .append(i)
                        .append(": ")
                        .append(annotation(annotation))
                        .append('\n');
            }
        }
    }

    private static void typeAnnotations(
            List<TypeAnnotationNode> visible, List<TypeAnnotationNode> invisible, String indent, StringBuilder out) {
        List<String> lines = new ArrayList<>();
        for (List<TypeAnnotationNode> list : List.of(nonNull(visible), nonNull(invisible))) {
            for (TypeAnnotationNode annotation : list) {
                lines.add(where(annotation.typeRef, annotation.typePath) + ": " + annotation(annotation));
            }
        }
        lines.stream().sorted().forEach(line -> out.append(indent).append(line).append('\n'));
    }

    /** Where a type-use annotation sits: "return", "parameter 1", "field", ... and its path inside the type. */
    private static String where(int typeRef, TypePath path) {
        TypeReference reference = new TypeReference(typeRef);
        String where;
        switch (reference.getSort()) {
            case TypeReference.METHOD_RETURN:
                where = "return";
                break;
            case TypeReference.METHOD_FORMAL_PARAMETER:
                where = "parameter " + reference.getFormalParameterIndex();
                break;
            case TypeReference.FIELD:
                where = "field";
                break;
            case TypeReference.METHOD_RECEIVER:
                where = "receiver";
                break;
            case TypeReference.THROWS:
                where = "throws " + reference.getExceptionIndex();
                break;
            case TypeReference.CLASS_EXTENDS:
                where = "supertype " + reference.getSuperTypeIndex();
                break;
            case TypeReference.CLASS_TYPE_PARAMETER:
            case TypeReference.METHOD_TYPE_PARAMETER:
                where = "type parameter " + reference.getTypeParameterIndex();
                break;
            case TypeReference.CLASS_TYPE_PARAMETER_BOUND:
            case TypeReference.METHOD_TYPE_PARAMETER_BOUND:
                where = "type parameter " + reference.getTypeParameterIndex() + " bound "
                        + reference.getTypeParameterBoundIndex();
                break;
            default:
                where = "type reference " + Integer.toHexString(typeRef);
        }
        return path == null ? "type-use on " + where : "type-use on " + where + " at " + path;
    }

    private static String annotation(AnnotationNode annotation) {
        StringBuilder text =
                new StringBuilder("@").append(Type.getType(annotation.desc).getClassName());
        if (annotation.values != null && !annotation.values.isEmpty()) {
            text.append('(');
            for (int i = 0; i < annotation.values.size(); i += 2) {
                if (i > 0) {
                    text.append(", ");
                }
                text.append(annotation.values.get(i)).append('=').append(value(annotation.values.get(i + 1)));
            }
            text.append(')');
        }
        return text.toString();
    }

    private static String value(Object value) {
        if (value instanceof String) {
            return '"'
                    + ((String) value)
                            .replace("\\", "\\\\")
                            .replace("\"", "\\\"")
                            .replace("\n", "\\n")
                    + '"';
        }
        if (value instanceof Type) {
            return ((Type) value).getClassName() + ".class";
        }
        if (value instanceof String[]) {
            String[] enumValue = (String[]) value;
            return Type.getType(enumValue[0]).getClassName() + "." + enumValue[1];
        }
        if (value instanceof AnnotationNode) {
            return annotation((AnnotationNode) value);
        }
        if (value instanceof List) {
            return ((List<?>) value).stream().map(ApiDump::value).collect(Collectors.joining(", ", "{", "}"));
        }
        if (value instanceof Character) {
            return "'" + value + "'";
        }
        if (value instanceof Long) {
            return value + "L";
        }
        if (value instanceof Float) {
            return value + "f";
        }
        if (value != null && value.getClass().isArray()) {
            List<Object> items = new ArrayList<>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(value); i++) {
                items.add(java.lang.reflect.Array.get(value, i));
            }
            return value(items);
        }
        return String.valueOf(value);
    }

    /** TraceSignatureVisitor leaves java.lang.Object out of a lone type (a return or field type): put it back. */
    private static String orObject(String type) {
        return type.isEmpty() ? "java.lang.Object" : type;
    }

    private static <T> List<T> nonNull(List<T> list) {
        return list == null ? List.of() : list;
    }

    private static String dotted(String internalName) {
        return internalName.replace('/', '.');
    }

    private static String simpleName(String internalName) {
        String name = internalName.substring(internalName.lastIndexOf('/') + 1);
        return name.substring(name.lastIndexOf('$') + 1);
    }
}
