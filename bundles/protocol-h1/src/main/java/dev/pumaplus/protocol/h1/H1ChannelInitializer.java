/*
 * Sets up each accepted client connection (the accept step of accept → parse → queue → ...): the request
 * decoder followed by the connection handler.
 */
package dev.pumaplus.protocol.h1;

import dev.pumaplus.spi.RequestQueue;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.group.ChannelGroup;

/**
 * Shared by every connection of one listener; {@link #initChannel} runs on the new connection's event loop.
 * Connections are tracked in {@code connections} so the listener can drain and close them.
 */
final class H1ChannelInitializer extends ChannelInitializer<Channel> {

    private final RequestQueue queue;
    private final H1Config config;
    private final ChannelGroup connections;

    H1ChannelInitializer(RequestQueue queue, H1Config config, ChannelGroup connections) {
        this.queue = queue;
        this.config = config;
        this.connections = connections;
    }

    @Override
    protected void initChannel(Channel channel) {
        H1RequestDecoder decoder = new H1RequestDecoder();
        channel.pipeline().addLast("h1-decoder", decoder);
        channel.pipeline().addLast("h1-connection", new H1ConnectionHandler(queue, config, decoder));
        connections.add(channel);
    }
}
