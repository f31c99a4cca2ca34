/*
 * The runtime contract's "puma-plus: ready, N slots" line: logged once, the first time every slot the first
 * generation's CONFIG expects (workers × threads) has dialled in after the launcher finished booting.
 */
package dev.pumaplus.host.boot;

import java.util.function.IntConsumer;
import java.util.function.IntSupplier;

/**
 * {@link #linksChanged} is called on any event loop whenever the live links change; {@link #booted} once on
 * the launcher's thread. Both read the count under this object's lock, so the last call always sees the
 * latest count: links on different event loops notify in either order, and a stale count (1 after 2) must
 * not be the one that decides.
 */
final class ReadyLine {

    private static final System.Logger LOG = System.getLogger(ReadyLine.class.getName());

    private final IntSupplier liveSlots;
    private final IntConsumer announcedSlots;
    private int expectedSlots = -1;
    private boolean announced;

    /**
     * @param liveSlots      the live worker links now (the dispatcher's count)
     * @param announcedSlots told the slot count right after the line is logged (systemd's READY=1)
     */
    ReadyLine(IntSupplier liveSlots, IntConsumer announcedSlots) {
        this.liveSlots = liveSlots;
        this.announcedSlots = announcedSlots;
    }

    /** Boot is done and {@code slots} are expected; logs the line now if they are all live. */
    void booted(int slots) {
        synchronized (this) {
            expectedSlots = slots;
        }
        linksChanged();
    }

    /** After a live-link change (any thread). */
    void linksChanged() {
        int live;
        synchronized (this) {
            live = liveSlots.getAsInt();
            if (expectedSlots < 0 || announced || live < expectedSlots) {
                return;
            }
            announced = true;
        }
        LOG.log(System.Logger.Level.INFO, "ready, " + live + " slots");
        announcedSlots.accept(live);
    }
}
