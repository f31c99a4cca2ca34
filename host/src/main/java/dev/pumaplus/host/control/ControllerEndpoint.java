/*
 * The control app's /controller endpoint: reports which autoscaling policy is in charge and swaps the
 * controller bundle live (Bundle.update), the verb `puma-plus ctl` drives. Beside the request path: a swap
 * never touches the queue or a worker.
 */
package dev.pumaplus.host.control;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pumaplus.host.framework.EmbeddedFelix;
import dev.pumaplus.spi.Autoscaler;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code GET /controller}: {@code {"policy": id, "ticks": n, "last_decision": "..."}}, or 404 when no
 * autoscaler runs. {@code POST /controller?jar=/abs/path/controller.jar}: replaces the installed controller
 * bundle ({@value #BUNDLE}) with that jar, live, and answers {@code {"policy": new id, "swap_ms": ms}}
 * once the new bundle runs; 404 when autoscaling is off, 403 when no {@code controller_jar_dir} is
 * configured or the jar's real path (every symlink and {@code ..} resolved) is not inside that directory's
 * real path, 400 without an absolute path to a readable regular file, 500 when the update fails (the
 * message says why). The jar loaded is the resolved real path, so a symlink changed after the check
 * cannot redirect it. The control app's token and browser rules apply.
 *
 * <p>Threading: the swap blocks (the old bundle's ticker stops, the new one starts), so it runs on its
 * own thread, never on the control app's thread, which serves every other route; {@code reply} is called
 * from that thread.
 */
final class ControllerEndpoint {

    static final String PATH = "/controller";
    static final String BUNDLE = "dev.pumaplus.controller";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ControllerEndpoint() {
    }

    /** {@code jarDir}: the configured controller_jar_dir, or null (no swap). */
    static void handle(EmbeddedFelix felix, Path jarDir, FullHttpRequest request, QueryStringDecoder query,
                       Consumer<FullHttpResponse> reply) {
        if (felix == null || felix.services(Autoscaler.class).isEmpty()) {
            reply.accept(json(HttpResponseStatus.NOT_FOUND, error("autoscaling is off: no controller bundle runs")));
            return;
        }
        if (request.method().equals(HttpMethod.GET) || request.method().equals(HttpMethod.HEAD)) {
            reply.accept(json(HttpResponseStatus.OK, status(felix)));
            return;
        }
        if (!request.method().equals(HttpMethod.POST)) {
            FullHttpResponse r = json(HttpResponseStatus.METHOD_NOT_ALLOWED, error("method not allowed"));
            r.headers().set(HttpHeaderNames.ALLOW, "GET, HEAD, POST");
            reply.accept(r);
            return;
        }
        if (jarDir == null) {
            reply.accept(json(HttpResponseStatus.FORBIDDEN,
                    error("no controller_jar_dir is configured: the controller bundle cannot be swapped")));
            return;
        }
        List<String> jars = query.parameters().get("jar");
        Path given = jars == null || jars.isEmpty() ? null : Path.of(jars.get(0));
        if (given == null || !given.isAbsolute() || !Files.isRegularFile(given) || !Files.isReadable(given)) {
            reply.accept(json(HttpResponseStatus.BAD_REQUEST, error("?jar= must name a readable bundle jar by absolute path")));
            return;
        }
        Path jar = inside(jarDir, given);
        if (jar == null) {
            reply.accept(json(HttpResponseStatus.FORBIDDEN, error("?jar= is not inside controller_jar_dir " + jarDir)));
            return;
        }
        Thread swap = new Thread(() -> {
            long started = System.nanoTime();
            try {
                felix.update(BUNDLE, jar);
                ObjectNode body = status(felix);
                body.put("swap_ms", Math.round((System.nanoTime() - started) / 1e6));
                reply.accept(json(HttpResponseStatus.OK, body));
            } catch (Exception e) {
                reply.accept(json(HttpResponseStatus.INTERNAL_SERVER_ERROR, error("swap failed: " + e.getMessage())));
            }
        }, "puma-plus-controller-swap");
        swap.setDaemon(true);
        swap.start();
    }

    /**
     * {@code jar}'s real path when it lies below {@code dir}'s real path (compared by path elements, so
     * {@code /jars-other} is not inside {@code /jars}), else null; null too when either cannot be resolved.
     */
    static Path inside(Path dir, Path jar) {
        try {
            Path realDir = dir.toRealPath();
            Path realJar = jar.toRealPath();
            return realJar.startsWith(realDir) && !realJar.equals(realDir) ? realJar : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static ObjectNode status(EmbeddedFelix felix) {
        ObjectNode body = JSON.createObjectNode();
        List<Autoscaler> running = felix.services(Autoscaler.class);
        if (running.isEmpty()) {
            body.putNull("policy");
            return body;
        }
        Autoscaler a = running.get(0);
        body.put("policy", a.policyId());
        body.put("ticks", a.ticks());
        body.put("last_decision", a.lastDecision());
        return body;
    }

    private static ObjectNode error(String message) {
        return JSON.createObjectNode().put("error", message);
    }

    private static FullHttpResponse json(HttpResponseStatus status, ObjectNode body) {
        byte[] bytes = (body.toString() + "\n").getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        return r;
    }
}
