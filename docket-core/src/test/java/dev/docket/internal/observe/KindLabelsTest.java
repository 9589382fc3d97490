package dev.docket.internal.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KindLabelsTest {

    @Test
    void theFirstKindsKeepTheirNameAndTheRestAreOther() {
        KindLabels labels = new KindLabels(2);
        assertThat(labels.label("a")).isEqualTo("a");
        assertThat(labels.label("b")).isEqualTo("b");
        assertThat(labels.label("c")).isEqualTo(KindLabels.OTHER);
        assertThat(labels.label("a")).isEqualTo("a");
        assertThat(labels.label("b")).isEqualTo("b");
        assertThat(labels.label("c")).isEqualTo(KindLabels.OTHER);
    }

    @Test
    void concurrentNewKindsNeverExceedTheLimit() {
        KindLabels labels = new KindLabels(10);
        Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        IntStream.range(0, 10_000).parallel().forEach(i -> seen.add(labels.label("kind-" + i)));
        Set<String> named = new HashSet<>(seen);
        named.remove(KindLabels.OTHER);
        assertThat(named).hasSize(10);
    }

    @Test
    void aLimitBelowOneIsRefused() {
        assertThatThrownBy(() -> new KindLabels(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the kind label limit must be >= 1, was 0");
    }
}
