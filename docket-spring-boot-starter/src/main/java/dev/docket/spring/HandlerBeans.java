package dev.docket.spring;

import dev.docket.JobHandler;
import dev.docket.JobKind;
import dev.docket.Worker;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.ResolvableType;

/**
 * The beans annotated {@link DocketHandler}, each with its kind and payload type, found once and
 * registered on every worker builder the starter makes.
 */
final class HandlerBeans {

    /** One handler bean: its kind is a declared {@link JobKind} or a name with a payload type. */
    private record Binding(String beanName, String kind, JobKind<?> jobKind, Class<?> payloadType,
                           JobHandler<?> handler) {
    }

    private final List<Binding> bindings;

    HandlerBeans(ConfigurableListableBeanFactory beans, Map<String, JobKind<?>> kinds) {
        List<Binding> found = new ArrayList<>();
        for (String name : beans.getBeanNamesForAnnotation(DocketHandler.class)) {
            DocketHandler annotation = beans.findAnnotationOnBean(name, DocketHandler.class);
            Object bean = beans.getBean(name);
            if (!(bean instanceof JobHandler<?> handler)) {
                throw new IllegalStateException("bean '" + name + "' is annotated @DocketHandler(\""
                        + annotation.value() + "\") but does not implement dev.docket.JobHandler");
            }
            JobKind<?> kind = kinds.get(annotation.value());
            Class<?> payloadType = kind != null ? kind.payloadType() : payloadType(beans, name, annotation.value());
            found.add(new Binding(name, annotation.value(), kind, payloadType, handler));
        }
        this.bindings = List.copyOf(found);
    }

    /** The type argument {@code T} of the bean's {@code JobHandler<T>}, from its class or its factory method. */
    private static Class<?> payloadType(ConfigurableListableBeanFactory beans, String name, String kind) {
        ResolvableType type = ResolvableType.NONE;
        if (beans.containsBeanDefinition(name)) {
            BeanDefinition definition = beans.getMergedBeanDefinition(name);
            type = definition.getResolvableType();
        }
        Class<?> payload = type.as(JobHandler.class).getGeneric(0).resolve();
        if (payload == null) {
            Class<?> beanClass = beans.getType(name);
            payload = beanClass == null ? null
                    : ResolvableType.forClass(beanClass).as(JobHandler.class).getGeneric(0).resolve();
        }
        if (payload == null) {
            throw new IllegalStateException("handler bean '" + name + "' for kind '" + kind + "': cannot tell its "
                    + "payload type; implement JobHandler<YourPayload> (not a raw JobHandler), or declare a JobKind "
                    + "bean named '" + kind + "'");
        }
        return payload;
    }

    /** Registers every handler bean on {@code worker}. */
    void registerOn(Worker.Builder worker) {
        for (Binding b : bindings) {
            register(worker, b);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void register(Worker.Builder worker, Binding b) {
        try {
            if (b.jobKind() != null) {
                worker.handler((JobKind) b.jobKind(), (JobHandler) b.handler());
            } else {
                worker.handler(b.kind(), (Class) b.payloadType(), (JobHandler) b.handler());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("handler bean '" + b.beanName() + "' for kind '" + b.kind() + "': "
                    + e.getMessage(), e);
        }
    }

    boolean isEmpty() {
        return bindings.isEmpty();
    }

    /** The kinds that have a handler bean. */
    List<String> kinds() {
        return bindings.stream().map(Binding::kind).toList();
    }
}
