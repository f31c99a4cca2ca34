/**
 * The link room: the unix socket worker threads and the shepherd dial in to, the HELLO/WELCOME handshake
 * that tells a worker link from the shepherd's control link, and the host's event loops (epoll with NIO
 * fallback) the link server, the listeners and the control app run on. A worker link it accepts joins the
 * queue room's dispatcher; a shepherd link is handed to the lifecycle room.
 *
 * <p>May use: the queue room (to hand it worker links), the SPI ({@code EventLoops}) and the wire codec.
 * Must never touch: lifecycle, config, control, framework or boot.
 */
package dev.pumaplus.host.link;
