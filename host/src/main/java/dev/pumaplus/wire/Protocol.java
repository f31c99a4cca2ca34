/*
 * The version of the worker link protocol this codec speaks (docs/PROTOCOL.md, "Version history"): what the
 * host answers in WELCOME and puts in every HELLO its tests send; the Ruby codec's Wire::VERSION.
 */
package dev.pumaplus.wire;

/** The protocol version, one number for the whole codec. */
public final class Protocol {

    /** The protocol version this codec speaks: the host answers every HELLO of this version or higher with it. */
    public static final int VERSION = 7;

    /**
     * The oldest version the host still speaks: a HELLO of version 5 is answered WELCOME(5). Version 6 only
     * adds an optional field a version-5 peer never sends (RESPONSE_HEAD's GVL_WAIT), and version 7 WS_COMMAND
     * ops an older worker never sends (SEND_DATAGRAM, SEND_STREAM), so nothing else differs.
     */
    public static final int MIN_VERSION = 5;

    private Protocol() {
    }
}
