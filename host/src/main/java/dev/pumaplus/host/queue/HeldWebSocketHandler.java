/*
 * The last handler of a WebSocket connection the host holds (docs/WEBSOCKETS.md), after Netty's RFC 6455
 * codec, which the hub (WebSockets) installs on a pipeline of the protocols that hold WebSockets (HTTP/1.1,
 * and h2's extended CONNECT): hands each whole message to the hub's session (parse → queue) and writes what
 * the hub sends (respond), with the closing handshake, pings, and the bounded outbound buffer. Also builds
 * that codec on a pipeline.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.HeldWebSocket;
import dev.pumaplus.spi.WebSocketSession;
import dev.pumaplus.spi.WebSocketSettings;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.compression.DecompressionException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.Utf8FrameValidator;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameDecoder;
import io.netty.handler.codec.http.websocketx.WebSocket13FrameEncoder;
import io.netty.handler.codec.http.websocketx.WebSocketDecoderConfig;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionUtil;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateServerExtensionHandshaker;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;

/**
 * Inbound: a text or binary message (fragments already joined by the aggregator, inflated when
 * permessage-deflate was agreed) goes to {@link WebSocketSession#message}, one over the message limit closes
 * the connection with 1009 instead; a ping is answered with a pong; a close is answered with the same code
 * and the connection closes. The session hears {@link WebSocketSession#closed} once, with the code of the
 * close that ended it (the client's, the app's, 1009 for a message over the limit, 1008 for a slow consumer,
 * 1001 for a client silent for two ping intervals), or 1006 when it broke without one.
 *
 * <p>Outbound ({@link WebSocketPeer}, any thread): each message hops to the event loop and is counted as
 * pending until its write completes; one that would take the pending bytes past the outbound limit closes
 * the connection with 1008 instead. A close frame waits behind what is already pending; the socket closes
 * when the client answers it, or after the write timeout.
 *
 * <p>A protocol has the hub build the whole codec ({@code WebSocketHub.install}, which calls {@link #install})
 * once it has answered the handshake, then hands the returned handler to {@code WebSocketHub.hold} and the
 * session back through {@link #held}.
 *
 * <p>Threading: the channel's event loop, except the {@link WebSocketPeer} methods, which hop to it.
 */
final class HeldWebSocketHandler extends ChannelDuplexHandler implements HeldWebSocket {

    /** Bytes past the message limit that a compressed frame may inflate to before its inflater gives up. */
    static final int INFLATE_SLACK = 64 * 1024;

    private final int maxMessage;
    private final long outboundLimit;
    private final long writeTimeoutSecs;
    private ChannelHandlerContext ctx;
    private volatile WebSocketSession session;
    // event loop only
    private long pending;
    private boolean closing;
    private int closeCode = ABNORMAL;

    private HeldWebSocketHandler(int maxMessage, long outboundLimit, long writeTimeoutSecs) {
        this.maxMessage = maxMessage;
        this.outboundLimit = outboundLimit;
        this.writeTimeoutSecs = writeTimeoutSecs;
    }

    /**
     * permessage-deflate (RFC 7692) for a client's {@code Sec-WebSocket-Extensions} offer (null: none), with
     * Netty's extension handshaker: the agreed extension, its answer added to {@code responseHeaders}; or null.
     * Its decoder inflates a frame into at most {@link #INFLATE_SLACK} bytes more than
     * {@link WebSocketSettings#maxMessage()} and fails one that needs more (1009): the frame decoder's limit
     * bounds only the compressed bytes, and a 1 MiB frame of zeros inflates to 1 GiB. The slack is there
     * because Netty's inflater can fail up to 512 bytes short of its limit; the message limit itself is
     * {@link #channelRead}'s.
     */
    static WebSocketServerExtension negotiateDeflate(String offered, WebSocketSettings settings,
                                                            List<Map.Entry<String, String>> responseHeaders) {
        if (offered == null) {
            return null;
        }
        PerMessageDeflateServerExtensionHandshaker handshaker = new PerMessageDeflateServerExtensionHandshaker(
                (int) Math.min(Integer.MAX_VALUE, (long) settings.maxMessage() + INFLATE_SLACK));
        for (WebSocketExtensionData data : WebSocketExtensionUtil.extractExtensions(offered)) {
            WebSocketServerExtension extension = handshaker.handshakeExtension(data);
            if (extension != null) {
                WebSocketExtensionData answer = extension.newReponseData();
                StringBuilder value = new StringBuilder(answer.name());
                answer.parameters().forEach((k, v) -> value.append("; ").append(k).append(v == null ? "" : "=" + v));
                responseHeaders.add(Map.entry("Sec-WebSocket-Extensions", value.toString()));
                return extension;
            }
        }
        return null;
    }

    /**
     * Adds Netty's RFC 6455 server codec after the handler named {@code after} — frame encoder and decoder
     * (masked frames, {@link WebSocketSettings#maxMessage()} per frame), the {@code deflate} extension when
     * one was agreed, UTF-8 validation of text, fragments joined up to the same limit, the ping timer — and
     * a HeldWebSocketHandler last, which it returns. The pipeline below {@code after} must carry the connection's
     * bytes as {@link ByteBuf}s. Event loop.
     */
    static HeldWebSocketHandler install(ChannelPipeline pipeline, String after, WebSocketSettings settings,
                                        long writeTimeoutSecs, WebSocketServerExtension deflate) {
        HeldWebSocketHandler held = new HeldWebSocketHandler(settings.maxMessage(), settings.outboundLimit(), writeTimeoutSecs);
        List<ChannelHandler> handlers = new ArrayList<>();
        // The encoder first: the close frame the decoder writes on a protocol violation (a frame over the
        // limit: 1009) goes out from the decoder's place, towards the head, through the encoder.
        handlers.add(new WebSocket13FrameEncoder(false));
        handlers.add(new WebSocket13FrameDecoder(WebSocketDecoderConfig.newBuilder()
                .maxFramePayloadLength(settings.maxMessage()).expectMaskedFrames(true)
                .allowExtensions(deflate != null).closeOnProtocolViolation(true).build()));
        if (deflate != null) {
            handlers.add(deflate.newExtensionDecoder());
            handlers.add(deflate.newExtensionEncoder());
        }
        handlers.add(new Utf8FrameValidator(true));
        handlers.add(new WebSocketFrameAggregator(settings.maxMessage()));
        long ping = settings.pingInterval().toMillis();
        if (ping > 0) {
            handlers.add(new IdleStateHandler(ping, 0, 0, TimeUnit.MILLISECONDS));
        }
        handlers.add(held);
        String previous = after;
        for (ChannelHandler handler : handlers) {
            String name = "ws-" + handler.getClass().getSimpleName();
            pipeline.addAfter(previous, name, handler);
            previous = name;
        }
        return held;
    }

    /** The hub's session for this connection; set once, right after {@link #install}. Event loop. */
    void held(WebSocketSession heldSession) {
        this.session = heldSession;
        if (!ctx.channel().isActive()) {
            heldSession.closed(ABNORMAL); // the client left while the handshake was written
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext context) {
        this.ctx = context;
    }

    // ---- inbound ----

    @Override
    public void channelRead(ChannelHandlerContext context, Object msg) {
        try {
            if (msg instanceof TextWebSocketFrame || msg instanceof BinaryWebSocketFrame) {
                ByteBuf content = ((WebSocketFrame) msg).content();
                if (content.readableBytes() > maxMessage) {
                    // One compressed frame, inflated: the aggregator measures only messages of several frames.
                    closeNow(MESSAGE_TOO_BIG, "message too big");
                } else if (!closing) {
                    session.message(msg instanceof BinaryWebSocketFrame, content.retain(), System.nanoTime());
                }
            } else if (msg instanceof PingWebSocketFrame ping) {
                context.writeAndFlush(new PongWebSocketFrame(ping.content().retain()));
            } else if (msg instanceof CloseWebSocketFrame close) {
                if (closing) {
                    context.close(); // the answer to our close
                } else {
                    closing = true;
                    int code = close.statusCode();
                    closeCode = code < 0 ? 1005 : code; // 1005: the close frame named no code
                    CloseWebSocketFrame answer = code < 0 ? new CloseWebSocketFrame()
                            : new CloseWebSocketFrame(code, "");
                    context.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
                }
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext context, Object event) {
        if (event instanceof IdleStateEvent idle) {
            if (idle.isFirst()) {
                context.writeAndFlush(new PingWebSocketFrame(Unpooled.EMPTY_BUFFER));
            } else {
                closeNow(GOING_AWAY, "no answer to ping");
            }
            return;
        }
        context.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext context, Throwable cause) {
        if (cause instanceof TooLongFrameException || cause.getCause() instanceof TooLongFrameException
                || inflatedPastLimit(cause)) {
            closeNow(MESSAGE_TOO_BIG, "message too big");
        } else if (cause instanceof CorruptedWebSocketFrameException corrupt) {
            // The decoder (or the UTF-8 validator) has sent the close frame and closes the socket itself.
            closing = true;
            closeCode = corrupt.closeStatus().code();
        } else {
            context.close(); // a reset or an I/O error: nothing can be written any more
        }
    }

    /**
     * The deflate decoder stopped at its limit ({@link #negotiateDeflate}): Netty's inflater reports that
     * with a bare DecompressionException, and corrupt compressed data with one caused by the JDK's
     * DataFormatException.
     */
    private static boolean inflatedPastLimit(Throwable cause) {
        return cause instanceof DecompressionException && !(cause.getCause() instanceof DataFormatException);
    }

    @Override
    public void channelInactive(ChannelHandlerContext context) {
        WebSocketSession s = session;
        if (s != null) {
            s.closed(closeCode);
        }
        context.fireChannelInactive();
    }

    // ---- WebSocketPeer: any thread ----

    @Override
    public void send(boolean binary, ByteBuf data) {
        ctx.executor().execute(() -> write(binary, data));
    }

    @Override
    public void close(int code, String reason) {
        ctx.executor().execute(() -> closeNow(code, reason));
    }

    @Override
    public void reading(boolean on) {
        ctx.executor().execute(() -> {
            ctx.channel().config().setAutoRead(on);
            if (on) {
                ctx.read();
            }
        });
    }

    // ---- outbound: event loop ----

    private void write(boolean binary, ByteBuf data) {
        if (closing || !ctx.channel().isActive()) {
            data.release();
            return;
        }
        long size = data.readableBytes();
        if (pending + size > outboundLimit) {
            data.release();
            closeNow(POLICY_VIOLATION, "slow consumer: outbound limit " + outboundLimit + " bytes");
            return;
        }
        pending += size;
        WebSocketFrame frame = binary ? new BinaryWebSocketFrame(data) : new TextWebSocketFrame(data);
        ctx.writeAndFlush(frame).addListener(written -> pending -= size);
    }

    /** Sends a close frame with {@code code} behind what is pending; the socket closes once it is out. */
    private void closeNow(int code, String reason) {
        if (closing) {
            return;
        }
        closing = true;
        closeCode = code;
        if (!ctx.channel().isActive()) {
            return;
        }
        // RFC 6455 §7.1.1: the client answers with its close and the socket closes then (channelRead); a client
        // that never answers, or takes no bytes so the close frame never leaves, is closed after the write
        // timeout.
        ctx.writeAndFlush(new CloseWebSocketFrame(code, reason));
        ctx.executor().schedule(() -> ctx.close(), Math.max(1, writeTimeoutSecs), TimeUnit.SECONDS);
    }
}
