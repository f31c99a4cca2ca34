/**
 * The boot room: the {@code main} the gem's executable runs. It parses the command line, installs the one
 * log handler, builds every other room and wires them (the only room that sees all of them), registers the
 * host's services with the framework, prints the ready line, tells systemd, and stops everything in order.
 *
 * <p>May use: every other host room, the SPI and the wire codec. Must never be used by another room: it is
 * the top of the graph.
 */
package dev.pumaplus.host.boot;
