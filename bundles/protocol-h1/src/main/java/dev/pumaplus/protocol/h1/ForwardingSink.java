/*
 * A ResponseSink in front of another (respond step): forwards every call unchanged, so a decorator of the
 * protocol's sink (AltSvcQueue's extra header, WebSocketUpgrade's watch for the app's accept) overrides only
 * what it changes, and a method added to ResponseSink is forwarded here, once.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.ResponseSink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.FileRegion;
import java.util.List;
import java.util.Map;

/** Threading: whatever the wrapped sink allows; this class keeps no state of its own. */
abstract class ForwardingSink implements ResponseSink {

    /** The sink every call not overridden goes to. */
    protected final ResponseSink sink;

    ForwardingSink(ResponseSink sink) {
        this.sink = sink;
    }

    @Override
    public void head(int status, List<Map.Entry<String, String>> headers, boolean endOfStream) {
        sink.head(status, headers, endOfStream);
    }

    @Override
    public boolean body(ByteBuf chunk, boolean endOfStream) {
        return sink.body(chunk, endOfStream);
    }

    @Override
    public void fail(int status, String reason, boolean headSent) {
        sink.fail(status, reason, headSent);
    }

    @Override
    public boolean acceptsFiles() {
        return sink.acceptsFiles();
    }

    @Override
    public boolean file(FileRegion region, boolean endOfStream) {
        return sink.file(region, endOfStream);
    }

    @Override
    public void earlyHints(List<Map.Entry<String, String>> headers) {
        sink.earlyHints(headers);
    }

    @Override
    public boolean hijack(int status, List<Map.Entry<String, String>> headers, Channel app, Runnable welcome) {
        return sink.hijack(status, headers, app, welcome);
    }
}
