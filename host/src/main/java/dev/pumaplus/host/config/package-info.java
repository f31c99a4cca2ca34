/**
 * The config room: the host's resolved configuration (what the shepherd evaluated from
 * {@code config/puma-plus.rb}, with defaults) and the log line format every host log line goes through.
 *
 * <p>May use: the queue room (the request log's logger name and fields, so a request line is formatted
 * like every other line) and the SPI's settings records. Must never touch: lifecycle, control, framework or
 * boot — they read the configuration, never the other way round.
 */
package dev.pumaplus.host.config;
