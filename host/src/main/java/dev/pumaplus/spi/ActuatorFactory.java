/*
 * How an actuator bundle makes its Actuator (the controller's loop: observe → decide → actuate): the bundle's
 * activator registers one of these as a service; the host makes the actuator on its WorkerPool and registers
 * it as the bundle's Actuator service until the bundle stops.
 */
package dev.pumaplus.spi;

/** Registered by an actuator bundle's activator, one per bundle; called once, on the starting thread. */
@FunctionalInterface
public interface ActuatorFactory {

    /** The bundle's actuator over the host's {@code pool}. */
    Actuator make(WorkerPool pool);
}
