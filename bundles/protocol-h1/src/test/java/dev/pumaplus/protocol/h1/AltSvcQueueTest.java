/*
 * AltSvcQueue wraps every sink of HTTP/1.1 over TLS when HTTP/3 is loaded: a ResponseSink method it does not
 * forward silently falls back to the interface default (early hints dropped, hijack refused, files read
 * through memory) on exactly those connections.
 */
package dev.pumaplus.protocol.h1;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pumaplus.spi.ResponseSink;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class AltSvcQueueTest {

    @Test
    @Timeout(10)
    void forwardsEveryResponseSinkMethod() throws Exception {
        Class<?> sink = Class.forName(AltSvcQueue.class.getName() + "$Sink");
        List<String> missing = Arrays.stream(ResponseSink.class.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .filter(m -> !declares(sink, m))
                .map(Method::getName)
                .toList();
        assertEquals(List.of(), missing, "ResponseSink methods AltSvcQueue does not forward");
    }

    @Test
    @Timeout(10)
    void addsAltSvcToTheHeadAndPassesEarlyHintsThrough() {
        AtomicReference<ResponseSink> wrapped = new AtomicReference<>();
        AltSvcQueue queue = new AltSvcQueue((SubmitQueue) (connection, head, body, complete, s) -> {
            wrapped.set(s);
            return null;
        }, "h3=\":443\"");
        AtomicReference<List<Map.Entry<String, String>>> hints = new AtomicReference<>();
        AtomicReference<List<Map.Entry<String, String>>> headers = new AtomicReference<>();
        queue.submit(new Object(), null, null, null, new ResponseSink() {
            @Override
            public void head(int status, List<Map.Entry<String, String>> h, boolean endOfStream) {
                headers.set(h);
            }

            @Override
            public boolean body(io.netty.buffer.ByteBuf chunk, boolean endOfStream) {
                return true;
            }

            @Override
            public void fail(int status, String reason, boolean headSent) {
            }

            @Override
            public void earlyHints(List<Map.Entry<String, String>> h) {
                hints.set(h);
            }
        });
        wrapped.get().earlyHints(List.of(Map.entry("Link", "</a.css>; rel=preload")));
        wrapped.get().head(200, List.of(Map.entry("Content-Length", "0")), true);
        assertEquals(List.of(Map.entry("Link", "</a.css>; rel=preload")), hints.get());
        assertEquals(List.of(Map.entry("Content-Length", "0"), Map.entry("Alt-Svc", "h3=\":443\"")), headers.get());
    }

    /** {@code type} or a class it extends (ForwardingSink) implements {@code method}: not the interface default. */
    private static boolean declares(Class<?> type, Method method) {
        try {
            return !type.getMethod(method.getName(), method.getParameterTypes()).getDeclaringClass().isInterface();
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
