/*
 * Turns a parsed request (RequestHead, from any protocol bundle) into the REQUEST payload, its Rack env pair
 * list written straight into one buffer, at submit time on the protocol's thread, so that the worker does
 * no per-request string work.
 */
package dev.pumaplus.host.queue;

import dev.pumaplus.spi.RequestHead;
import dev.pumaplus.wire.PairList;
import dev.pumaplus.wire.Request;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Builds the env exactly as docs/PROTOCOL.md "The env pair list" orders it: REQUEST_METHOD, SCRIPT_NAME,
 * PATH_INFO, QUERY_STRING, SERVER_NAME, SERVER_PORT, SERVER_PROTOCOL, REMOTE_ADDR, rack.url_scheme, then
 * CONTENT_TYPE/CONTENT_LENGTH when present, then one HTTP_* per distinct header in first-seen order, then
 * {@code puma_plus.request_id}.
 *
 * <p>Rules, following puma where the spec is silent:
 * <ul>
 *   <li>The target is split at the first {@code ?}; nothing is decoded. An absolute-form target
 *       ({@code http://host/path?q}) contributes only its path and query: its authority is the protocol
 *       bundle's to put in the Host header (HTTP/1.x puts it there, RFC 9112 §3.2.2, as h2 and h3 put
 *       {@code :authority}).</li>
 *   <li>Host is one value: the first Host header's. HTTP_HOST is that value, never later ones joined to
 *       it, and SERVER_NAME/SERVER_PORT come from it ({@code name}, {@code name:port}, {@code [v6]},
 *       {@code [v6]:port}; brackets kept, as puma does), so the three always agree; without a port (or
 *       with an empty one) the scheme's default (80/443); without a Host header, or with an empty one, the
 *       local address and port. (HTTP/1.x refuses a second Host field; h2 and h3 replace Host with
 *       {@code :authority} when there is one.)</li>
 *   <li>Content-Type and Content-Length become CONTENT_TYPE/CONTENT_LENGTH only (first value), never also
 *       HTTP_CONTENT_TYPE/HTTP_CONTENT_LENGTH, as Rack requires.</li>
 *   <li>Headers whose name contains {@code _} are dropped. {@code X-Foo} and {@code X_Foo} would both map
 *       to HTTP_X_FOO, so a client could spoof a header set by a trusted proxy; nginx and puma drop them
 *       for the same reason.</li>
 *   <li>Repeated headers are joined with {@code ", "}, Cookie with {@code "; "} (RFC 6265).</li>
 * </ul>
 * Header values are ISO-8859-1 chars (one per byte) and pass through untouched. The pairs go into the
 * payload buffer as they are made (no list of entries in between: one object fewer per pair, and the list).
 * Stateless, thread-safe.
 */
final class EnvEncoder {

    /** The HTTP_* names of the headers most requests carry, made once instead of per request. */
    private static final Map<String, String> COMMON_CGI_NAMES = Stream.of("host", "user-agent", "accept",
                    "accept-encoding", "accept-language", "connection", "cookie", "referer", "origin",
                    "cache-control", "pragma", "authorization", "if-none-match", "if-modified-since",
                    "upgrade-insecure-requests", "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host",
                    "x-forwarded-port", "x-real-ip", "x-request-id", "x-request-start", "x-requested-with",
                    "sec-fetch-dest", "sec-fetch-mode", "sec-fetch-site", "sec-fetch-user", "sec-ch-ua",
                    "sec-ch-ua-mobile", "sec-ch-ua-platform", "dnt", "te", "priority", "via")
            .collect(Collectors.toUnmodifiableMap(name -> name, EnvEncoder::makeCgiName));

    /** Room for the fixed pairs' names and values beyond the target, the headers and a Host's copies. */
    private static final int FIXED_PAIRS_ESTIMATE = 384;

    private EnvEncoder() {
    }

    /**
     * The REQUEST payload for {@code head} ({@link Request#startPayload}: room for the timing, which
     * {@link Request#frame} fills in at dispatch), then the env pairs, then {@code extraEnv}. The caller owns
     * the buffer.
     *
     * @param requestId the host-unique id for {@code puma_plus.request_id}
     * @param extraEnv  pairs appended after the env's own (a WebSocket event's), usually empty
     */
    static ByteBuf payload(ByteBufAllocator alloc, RequestHead head, long requestId,
                           List<Map.Entry<String, String>> extraEnv) {
        // Sized so that the writes below seldom grow it: each header once as HTTP_NAME, the target once as
        // PATH_INFO and QUERY_STRING, the fixed names, addresses and a Host of up to ~100 bytes (again as
        // SERVER_NAME and SERVER_PORT) within the estimate. A longer one grows the buffer, nothing more.
        int estimate = FIXED_PAIRS_ESTIMATE + head.target().length()
                + PairList.encodedLength(head.headers()) + "HTTP_".length() * head.headers().size()
                + PairList.encodedLength(extraEnv);
        ByteBuf payload = Request.startPayload(alloc, estimate);
        try {
            writeEnv(head, requestId, payload);
            PairList.write(extraEnv, payload);
            return payload;
        } catch (RuntimeException e) {
            payload.release();
            throw e;
        }
    }

    /** Appends the env pairs of {@code head} to {@code env}, in the documented order. */
    private static void writeEnv(RequestHead head, long requestId, ByteBuf env) {
        String target = pathAndQuery(head.target());
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? "" : target.substring(q + 1);

        String contentType = null;
        String contentLength = null;
        String host = null;
        // Distinct lower-case names in first-seen order, and their (joined) values. A linear search: a
        // request has a few dozen headers at most, and repeats are rare.
        int size = head.headers().size();
        String[] names = new String[size];
        String[] values = new String[size];
        int distinct = 0;
        for (Map.Entry<String, String> header : head.headers()) {
            String name = header.getKey();
            if (name.indexOf('_') >= 0) {
                continue;
            }
            String lower = name.toLowerCase(Locale.ROOT);
            String value = header.getValue();
            switch (lower) {
                case "content-type" -> {
                    if (contentType == null) {
                        contentType = value;
                    }
                    continue;
                }
                case "content-length" -> {
                    if (contentLength == null) {
                        contentLength = value;
                    }
                    continue;
                }
                case "host" -> {
                    if (host != null) {
                        continue; // a second Host: HTTP_HOST and SERVER_NAME both keep the first
                    }
                    host = value;
                }
                default -> {
                }
            }
            int seen = indexOf(names, distinct, lower);
            if (seen < 0) {
                names[distinct] = lower;
                values[distinct++] = value;
            } else {
                values[seen] = values[seen] + (lower.equals("cookie") ? "; " : ", ") + value;
            }
        }

        String serverName;
        String serverPort;
        if (host != null && !host.isEmpty()) {
            int colon;
            if (host.startsWith("[")) {
                int close = host.indexOf(']');
                colon = close >= 0 && close + 1 < host.length() && host.charAt(close + 1) == ':' ? close + 1 : -1;
            } else {
                colon = host.indexOf(':');
            }
            serverName = colon < 0 ? host : host.substring(0, colon);
            serverPort = colon < 0 || colon == host.length() - 1 ? defaultPort(head.scheme()) : host.substring(colon + 1);
        } else {
            serverName = hostString(head.local());
            serverPort = head.local() == null ? defaultPort(head.scheme()) : Integer.toString(head.local().getPort());
        }

        PairList.write("REQUEST_METHOD", head.method(), env);
        PairList.write("SCRIPT_NAME", "", env);
        PairList.write("PATH_INFO", path, env);
        PairList.write("QUERY_STRING", query, env);
        PairList.write("SERVER_NAME", serverName, env);
        PairList.write("SERVER_PORT", serverPort, env);
        PairList.write("SERVER_PROTOCOL", head.protocol(), env);
        PairList.write("REMOTE_ADDR", head.remote() == null ? "" : address(head.remote()), env);
        PairList.write("rack.url_scheme", head.scheme(), env);
        if (contentType != null) {
            PairList.write("CONTENT_TYPE", contentType, env);
        }
        if (contentLength != null) {
            PairList.write("CONTENT_LENGTH", contentLength, env);
        }
        for (int i = 0; i < distinct; i++) {
            PairList.write(cgiName(names[i]), values[i], env);
        }
        PairList.write("puma_plus.request_id", Long.toString(requestId), env);
    }

    /** The origin-form part of a target: an absolute-form target loses its scheme and authority. */
    static String pathAndQuery(String target) {
        int scheme = target.indexOf("://");
        if (scheme > 0 && target.charAt(0) != '/') {
            int pathStart = target.indexOf('/', scheme + 3);
            int queryStart = target.indexOf('?', scheme + 3);
            if (pathStart < 0 || (queryStart >= 0 && queryStart < pathStart)) {
                return queryStart < 0 ? "/" : "/" + target.substring(queryStart);
            }
            return target.substring(pathStart);
        }
        return target;
    }

    private static int indexOf(String[] names, int count, String name) {
        for (int i = 0; i < count; i++) {
            if (names[i].equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** {@code user-agent} → {@code HTTP_USER_AGENT}; the names most requests carry are made once. */
    static String cgiName(String lowerName) {
        String common = COMMON_CGI_NAMES.get(lowerName);
        return common != null ? common : makeCgiName(lowerName);
    }

    private static String makeCgiName(String lowerName) {
        return "HTTP_" + lowerName.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static String defaultPort(String scheme) {
        return "https".equalsIgnoreCase(scheme) ? "443" : "80";
    }

    private static String hostString(InetSocketAddress local) {
        if (local == null) {
            return "localhost";
        }
        InetAddress address = local.getAddress();
        if (address == null) {
            return local.getHostString();
        }
        String text = address.getHostAddress();
        return text.indexOf(':') >= 0 ? "[" + compact(stripScope(text)) + "]" : text;
    }

    private static String address(InetSocketAddress remote) {
        InetAddress address = remote.getAddress();
        return address == null ? remote.getHostString() : compact(stripScope(address.getHostAddress()));
    }

    private static String stripScope(String text) {
        int percent = text.indexOf('%');
        return percent < 0 ? text : text.substring(0, percent);
    }

    /** {@code 0:0:0:0:0:0:0:1} → {@code ::1}: the RFC 5952 form clients and logs use. */
    static String compact(String v6) {
        if (v6.indexOf(':') < 0) {
            return v6;
        }
        String[] groups = v6.split(":", -1);
        if (groups.length != 8) {
            return v6;
        }
        int bestStart = -1;
        int bestLength = 0;
        for (int i = 0; i < 8; ) {
            if (groups[i].equals("0")) {
                int j = i;
                while (j < 8 && groups[j].equals("0")) {
                    j++;
                }
                if (j - i > bestLength && j - i >= 2) {
                    bestStart = i;
                    bestLength = j - i;
                }
                i = j;
            } else {
                i++;
            }
        }
        if (bestStart < 0) {
            return v6;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < bestStart; i++) {
            out.append(i > 0 ? ":" : "").append(groups[i]);
        }
        out.append("::");
        for (int i = bestStart + bestLength; i < 8; i++) {
            out.append(groups[i]).append(i < 7 ? ":" : "");
        }
        return out.toString();
    }
}
