/*
 * Claims about the bookkeeping every counted actuator shares, over recorded units shaped as the fork
 * actuator's (two workers to start, never below one, 1 s default dead time): desired totals, ready capped by
 * the units asked for, dead time measured from readiness.
 */
package dev.pumaplus.host.lifecycle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.pumaplus.spi.CountedUnits;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class CountedActuatorTest {

    /** A bundle's side, recorded: the totals asked for, and how many units have dialled in. */
    static final class RecordingUnits implements CountedUnits {
        final List<Integer> asked = new ArrayList<>();
        int dialledIn;

        @Override
        public String kind() {
            return "fork";
        }

        @Override
        public int slotsPerUnit() {
            return 5;
        }

        @Override
        public long memoryPerUnitBytes() {
            return -1;
        }

        @Override
        public boolean gainKnown() {
            return true;
        }

        @Override
        public int initialUnits() {
            return 2;
        }

        @Override
        public int minUnits() {
            return 1;
        }

        @Override
        public long defaultDeadTimeMs() {
            return 1000;
        }

        @Override
        public void request(int total) {
            asked.add(total);
        }

        @Override
        public int dialledIn() {
            return dialledIn;
        }
    }

    @Test
    void addAsksForTheNewTotalAndCountsTheUnitsAsBootingUntilTheyDialIn() {
        RecordingUnits units = new RecordingUnits();
        units.dialledIn = 2;
        AtomicLong now = new AtomicLong(1_000);
        CountedActuator fork = new CountedActuator(units, now::get, false);
        assertEquals(2, fork.units());
        assertEquals(5, fork.slotsPerUnit());
        fork.add(3);
        assertEquals(List.of(5), units.asked);
        assertEquals(5, fork.units());
        assertEquals(2, fork.readyUnits());
        now.addAndGet(400_000_000);
        units.dialledIn = 5;
        assertEquals(5, fork.readyUnits());
        // the first measurement replaces the 1000 ms default
        assertEquals(400_000_000, fork.deadTimeNanos());
    }

    @Test
    void removeNeverGoesBelowTheMinimumAndRetiringUnitsAreNotReady() {
        RecordingUnits units = new RecordingUnits();
        units.dialledIn = 2;
        CountedActuator fork = new CountedActuator(units, System::nanoTime, false);
        fork.remove(5);
        assertEquals(List.of(1), units.asked);
        assertEquals(1, fork.units());
        assertEquals(1, fork.readyUnits(), "the retiring unit still dialled in is not capacity asked for");
    }
}
