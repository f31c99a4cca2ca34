/*
 * Service-time distributions for the discrete-event simulator: how long a request holds a slot once
 * dispatched. Sampled from the simulator's one seeded RNG, never from a hidden one.
 */
package dev.pumaplus.controller.sim;

import java.util.SplittableRandom;

/** A distribution of slot times, in seconds. */
@FunctionalInterface
public interface ServiceTime {

    /** One sample, seconds, &gt; 0. */
    double sample(SplittableRandom rng);

    /** Always {@code seconds}. */
    static ServiceTime constant(double seconds) {
        return rng -> seconds;
    }

    /** Exponential with the given mean (M/M/c). */
    static ServiceTime exponential(double meanSeconds) {
        return rng -> -meanSeconds * Math.log(1 - rng.nextDouble());
    }

    /**
     * Log-normal with the given mean and shape σ (σ 0.3 ≈ a request whose time varies by ±30 %, e.g. a
     * database wait; σ 1 a long tail).
     */
    static ServiceTime logNormal(double meanSeconds, double sigma) {
        double mu = Math.log(meanSeconds) - sigma * sigma / 2;
        return rng -> Math.exp(mu + sigma * gaussian(rng));
    }

    private static double gaussian(SplittableRandom rng) {
        // Box-Muller from the simulator's RNG (SplittableRandom has no nextGaussian on every JDK we target).
        double u1 = 1 - rng.nextDouble();
        double u2 = rng.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
}
