/**
 * The lifecycle room: the process tree under the host. It starts the Ruby shepherd, reads its resolved
 * config, asks it for workers (the {@code WorkerPool} service, which also makes the actuators' counting
 * and dead-time bookkeeping: CountedActuator, DeadTime, ExtraSlots), runs generations (hot restart, reload,
 * rollback: start the new shepherd, wait for its workers to dial in, drain and retire the old one) and
 * writes the pid and state files. And the bundles' part of that life: {@code BundleExtender} makes the
 * factory a protocol or actuator bundle names in its manifest when the bundle starts, registers the endpoint
 * or actuator it makes, and withdraws and closes it when the bundle stops (the OSGi extender pattern).
 *
 * <p>May use: config, the queue room (live link counts per generation), the SPI, the wire codec and the
 * OSGi API.
 * Must never touch: control, framework or boot.
 */
package dev.pumaplus.host.lifecycle;
