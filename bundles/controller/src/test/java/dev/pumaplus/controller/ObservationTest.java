/*
 * Claims about how an Observation is built: by name, with no field forgotten, and a bridge described whole
 * or not at all.
 */
package dev.pumaplus.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ObservationTest {

    /** Every field up to gainKnown set; no bridge. */
    private static Observation.Builder complete() {
        return Observation.builder().tick(1).tickMs(Observation.DEFAULT_TICK_MS).arrivalsPerSec(20).queueP95Ms(5)
                .queueP99Ms(6).slotMs(25).depth(0).busySlots(0).liveSlots(1).predictedWaitMs(0).units(1)
                .readyUnits(1).slotsPerUnit(1).deadTimeMs(1000).memPerUnitMb(Double.NaN)
                .memAvailableMb(Double.NaN).cpuBusy(Double.NaN).gainKnown(true);
    }

    @Test
    void eachStepSetsTheFieldOfItsName() {
        Observation o = complete().queueP95Ms(7).queueP99Ms(9).busySlots(1).build();
        assertEquals(7, o.queueP95Ms());
        assertEquals(9, o.queueP99Ms());
        assertEquals(1, o.busySlots());
        assertEquals(0, o.depth());
    }

    @Test
    void withoutBridgeStepsTheObservationHasNoBridge() {
        Observation o = complete().build();
        assertFalse(o.hasBridge());
        assertEquals(0, o.bridgeSlotsPerUnit());
        assertTrue(Double.isNaN(o.bridgeDeadTimeMs()));
    }

    @Test
    void aFieldNotSetIsNamedInsteadOfReadAsZero() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Observation.builder().tick(1).tickMs(1000).arrivalsPerSec(20).build());
        assertTrue(e.getMessage().contains("queueP95Ms") && e.getMessage().contains("gainKnown"), e.getMessage());
        assertFalse(e.getMessage().contains("bridge"), e.getMessage());
    }

    @Test
    void aBridgeIsDescribedWholeOrNotAtAll() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> complete().bridgeUnits(2).build());
        assertTrue(e.getMessage().contains("bridgeReadyUnits") && e.getMessage().contains("bridgeGainKnown"),
                e.getMessage());
        assertThrows(IllegalStateException.class, () -> complete().bridgeUnits(0).bridgeReadyUnits(0)
                .bridgeSlotsPerUnit(0).bridgeDeadTimeMs(5).bridgeGainKnown(true).build());
        Observation bridged = complete().bridgeUnits(2).bridgeReadyUnits(1).bridgeSlotsPerUnit(1)
                .bridgeDeadTimeMs(5).bridgeGainKnown(true).build();
        assertTrue(bridged.hasBridge());
        assertEquals(2, bridged.bridgeUnits());
        assertEquals(1, bridged.bridgeReadyUnits());
    }

    @Test
    void aTickShorterThanOneMillisecondIsRefused() {
        assertThrows(IllegalStateException.class, () -> complete().tickMs(0).build());
    }
}
