package io.locktable.samples.plain;

import static org.assertj.core.api.Assertions.assertThat;

import io.locktable.test.DynamoDbEngine;
import io.locktable.test.DynamoDbEngineTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

@DynamoDbEngineTest
class PlainJavaSampleTest {

    @Test
    void theSampleRunsEndToEndAndShowsEachStep(DynamoDbEngine engine) throws Exception {
        ByteArrayOutputStream output = new ByteArrayOutputStream();

        new PlainJavaSample(engine.client(), new PrintStream(output, true, StandardCharsets.UTF_8)).run();

        String text = output.toString(StandardCharsets.UTF_8);
        assertThat(text)
                .contains("instance-a holds 'report' with fencing token 1")
                .contains("instance-b tried too: empty")
                .contains("waited 1 s for a live holder and gave up")
                .contains("leads 'sweeper' with token 1")
                .contains("leads 'sweeper' with token 2")
                .contains("done: every step showed what it should");
    }
}
