/*
 * The frame type codes of the worker link (docs/PROTOCOL.md, "Frame types"): the first byte of every frame
 * that crosses the link between the host's dispatcher and a shepherd or worker thread.
 */
package dev.pumaplus.wire;

/** Frame type codes and their names as used in docs/PROTOCOL.md and the golden corpus. */
public final class FrameType {

    /** peer → host: version handshake. */
    public static final int HELLO = 0x01;
    /** host → peer: handshake accepted. */
    public static final int WELCOME = 0x02;
    /** either direction: drain and leave, or a refusal. */
    public static final int GOAWAY = 0x03;
    /** shepherd → host: the resolved configuration as JSON. */
    public static final int CONFIG = 0x04;
    /** host → shepherd: replace the workers one at a time (phased restart); empty payload. Version 3. */
    public static final int PHASED_RESTART = 0x06;
    /** host → shepherd: the desired number of worker processes ({@code u32}). Version 3. */
    public static final int WORKER_COUNT = 0x07;
    /** host → shepherd: the desired slots beyond {@code threads} over all worker processes ({@code u32}). Version 3. */
    public static final int EXTRA_SLOTS = 0x08;
    /** host → worker: timing points T2, T2b, T3 and the Rack env pair list. */
    public static final int REQUEST = 0x10;
    /** host → worker: request body bytes. */
    public static final int BODY = 0x11;
    /** worker → host: status, timing points T4, T5, body-read ns, and headers. */
    public static final int RESPONSE_HEAD = 0x20;
    /** worker → host: response body bytes. */
    public static final int RESPONSE_BODY = 0x21;
    /** worker → host: the response cannot be completed. */
    public static final int RESPONSE_ABORT = 0x22;
    /** worker → host: the app took the client connection (full hijack); a role-2 link follows. */
    public static final int HIJACK = 0x23;
    /** worker → host: a partial hijack's response head (RESPONSE_HEAD layout); ends the response. */
    public static final int HIJACK_HEAD = 0x24;
    /** worker → host: headers for a 103 Early Hints response, as a pair list. */
    public static final int EARLY_HINTS = 0x25;
    /** worker → host: a region of a file the host sends as response body (u64 offset, u64 length, path). */
    public static final int RESPONSE_FILE = 0x26;
    /** worker → host: a command for the WebSocket connections the host holds. Version 4. */
    public static final int WS_COMMAND = 0x30;

    private FrameType() {
    }

    /** True if {@code type} is defined by the protocol (version 3 adds HIJACK, HIJACK_HEAD, EARLY_HINTS, RESPONSE_FILE,
     * PHASED_RESTART, WORKER_COUNT and EXTRA_SLOTS;
     * version 4 WS_COMMAND). */
    public static boolean isKnown(int type) {
        return name(type) != null;
    }

    /** The protocol name of {@code type} (e.g. {@code RESPONSE_HEAD}), or null when undefined. */
    public static String name(int type) {
        return switch (type) {
            case HELLO -> "HELLO";
            case WELCOME -> "WELCOME";
            case GOAWAY -> "GOAWAY";
            case CONFIG -> "CONFIG";
            case PHASED_RESTART -> "PHASED_RESTART";
            case WORKER_COUNT -> "WORKER_COUNT";
            case EXTRA_SLOTS -> "EXTRA_SLOTS";
            case REQUEST -> "REQUEST";
            case BODY -> "BODY";
            case RESPONSE_HEAD -> "RESPONSE_HEAD";
            case RESPONSE_BODY -> "RESPONSE_BODY";
            case RESPONSE_ABORT -> "RESPONSE_ABORT";
            case HIJACK -> "HIJACK";
            case HIJACK_HEAD -> "HIJACK_HEAD";
            case EARLY_HINTS -> "EARLY_HINTS";
            case RESPONSE_FILE -> "RESPONSE_FILE";
            case WS_COMMAND -> "WS_COMMAND";
            default -> null;
        };
    }

    /** The code for a protocol name, e.g. {@code "BODY"} → {@link #BODY}. */
    public static int forName(String name) {
        return switch (name) {
            case "HELLO" -> HELLO;
            case "WELCOME" -> WELCOME;
            case "GOAWAY" -> GOAWAY;
            case "CONFIG" -> CONFIG;
            case "PHASED_RESTART" -> PHASED_RESTART;
            case "WORKER_COUNT" -> WORKER_COUNT;
            case "EXTRA_SLOTS" -> EXTRA_SLOTS;
            case "REQUEST" -> REQUEST;
            case "BODY" -> BODY;
            case "RESPONSE_HEAD" -> RESPONSE_HEAD;
            case "RESPONSE_BODY" -> RESPONSE_BODY;
            case "RESPONSE_ABORT" -> RESPONSE_ABORT;
            case "HIJACK" -> HIJACK;
            case "HIJACK_HEAD" -> HIJACK_HEAD;
            case "EARLY_HINTS" -> EARLY_HINTS;
            case "RESPONSE_FILE" -> RESPONSE_FILE;
            case "WS_COMMAND" -> WS_COMMAND;
            default -> throw new IllegalArgumentException("unknown frame type name: " + name);
        };
    }
}
