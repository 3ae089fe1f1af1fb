package io.locktable.spring.autoconfigure;

import io.locktable.spring.LeaderOnly;
import java.util.HashMap;
import java.util.Map;
import org.springframework.asm.AnnotationVisitor;
import org.springframework.asm.ClassWriter;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * Types of libraries that are not on the test class path (Kotlin) or that a test hides (Reactor), made up in a class
 * loader of their own so that nothing else in the JVM believes them present. Each comes with a bean class {@code
 * generated.DeferredJob} whose {@code @LeaderOnly("deferred") run} method returns one, or, for a Kotlin suspend
 * function, takes a {@code kotlin.coroutines.Continuation} last. The loader finds no other type of the library.
 */
final class MissingLibraryTypes {

    static final String JOB = "generated.DeferredJob";

    private MissingLibraryTypes() {}

    /**
     * A loader with {@value #JOB}, whose {@code run()} returns an instance of the made-up class {@code type}, and that
     * hides the real Reactor of the test class path.
     */
    static ClassLoader returning(String type) {
        return loader(type, false, "()L" + internal(type) + ";", "reactor.");
    }

    /** A loader with {@value #JOB}, whose {@code run(Continuation)} is what Kotlin makes of a suspend function. */
    static ClassLoader suspendFunction() {
        String continuation = "kotlin.coroutines.Continuation";
        return loader(continuation, true, "(L" + internal(continuation) + ";)Ljava/lang/Object;", "kotlin.");
    }

    /** A loader that defines the made-up types, and finds nothing else under {@code hidden} (a package prefix). */
    private static ClassLoader loader(String library, boolean libraryIsInterface, String runDescriptor, String hidden) {
        Map<String, byte[]> classes = new HashMap<>();
        classes.put(library, libraryType(library, libraryIsInterface));
        classes.put(JOB, job(runDescriptor));
        return new ClassLoader(MissingLibraryTypes.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (name.startsWith(hidden)) { // made up here, or hidden
                    synchronized (getClassLoadingLock(name)) {
                        Class<?> loaded = findLoadedClass(name);
                        return loaded != null ? loaded : findClass(name);
                    }
                }
                return super.loadClass(name, resolve);
            }

            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                byte[] bytes = classes.get(name);
                if (bytes == null) {
                    throw new ClassNotFoundException(name);
                }
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
    }

    private static byte[] libraryType(String name, boolean isInterface) {
        ClassWriter type = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        int access =
                isInterface ? Opcodes.ACC_PUBLIC | Opcodes.ACC_INTERFACE | Opcodes.ACC_ABSTRACT : Opcodes.ACC_PUBLIC;
        type.visit(Opcodes.V17, access, internal(name), null, "java/lang/Object", null);
        if (!isInterface) {
            constructor(type);
        }
        type.visitEnd();
        return type.toByteArray();
    }

    private static byte[] job(String runDescriptor) {
        ClassWriter job = new ClassWriter(ClassWriter.COMPUTE_FRAMES | ClassWriter.COMPUTE_MAXS);
        job.visit(Opcodes.V17, Opcodes.ACC_PUBLIC, internal(JOB), null, "java/lang/Object", null);
        constructor(job);
        MethodVisitor run = job.visitMethod(Opcodes.ACC_PUBLIC, "run", runDescriptor, null, null);
        AnnotationVisitor leaderOnly = run.visitAnnotation(Type.getDescriptor(LeaderOnly.class), true);
        leaderOnly.visit("value", "deferred");
        leaderOnly.visitEnd();
        run.visitCode();
        run.visitInsn(Opcodes.ACONST_NULL);
        run.visitInsn(Opcodes.ARETURN);
        run.visitMaxs(0, 0);
        run.visitEnd();
        job.visitEnd();
        return job.toByteArray();
    }

    private static void constructor(ClassWriter type) {
        MethodVisitor init = type.visitMethod(Opcodes.ACC_PUBLIC, "<init>", "()V", null, null);
        init.visitCode();
        init.visitVarInsn(Opcodes.ALOAD, 0);
        init.visitMethodInsn(Opcodes.INVOKESPECIAL, "java/lang/Object", "<init>", "()V", false);
        init.visitInsn(Opcodes.RETURN);
        init.visitMaxs(0, 0);
        init.visitEnd();
    }

    private static String internal(String name) {
        return name.replace('.', '/');
    }
}
