/*
 * How an actuator bundle makes its Actuator (the controller's loop: observe → decide → actuate): the bundle
 * names its implementation of this in its manifest; when the bundle starts the host makes the actuator on
 * its WorkerPool and registers it as the bundle's Actuator service until the bundle stops.
 */
package dev.pumaplus.spi;

/**
 * Named by an actuator bundle's {@link #HEADER} manifest header, one per bundle, with a public no-argument
 * constructor; the bundle needs no activator. The host makes one when the bundle starts and calls it once,
 * on the starting thread.
 */
@FunctionalInterface
public interface ActuatorFactory {

    /** The manifest header whose value is the bundle's implementing class, e.g. in its bnd instructions. */
    String HEADER = "PumaPlus-ActuatorFactory";

    /** The bundle's actuator over the host's {@code pool}. */
    Actuator make(WorkerPool pool);
}
