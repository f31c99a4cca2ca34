/*
 * The host's event loops, lent to the bundle that owns the TCP listeners (accept step): client connections
 * run on the same loops as the worker links, so a request and the link it is dispatched to usually share
 * one thread and the hand-over between them is a method call, not a wake-up of another loop.
 */
package dev.pumaplus.spi;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;

/**
 * The host's one event loop group and the TCP server channel class that matches its transport. The host
 * owns the group: a bundle binds and closes its own channels on it and never shuts it down (the host does,
 * after every bundle has stopped). protocol-h3, which has no channels, schedules its request bodies'
 * progress deadlines on it. Thread-safe.
 */
public interface EventLoops {

    /** The group: one loop per available processor; accept and client I/O both run on it. */
    EventLoopGroup group();

    /** The TCP server channel class for {@link #group()}'s transport (io_uring, epoll or NIO). */
    Class<? extends ServerChannel> tcpServerChannel();

    /** The unix-domain server channel class for {@link #group()}'s transport (for {@code unix://} binds). */
    Class<? extends ServerChannel> domainServerChannel();

    /**
     * "io_uring", "epoll" or "nio": the transport of {@link #group()}. The host runs epoll, not io_uring, when
     * systemd passed it listening sockets, so adopting a descriptor always finds epoll.
     */
    String transport();
}
