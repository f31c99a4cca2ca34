# Rackup file for the WebTransport chat example (docs/WEBTRANSPORT.md): one Rack app serves the page and
# both transports. WebTransport needs the HTTP/3 listener's URL and a certificate a browser may trust by
# its hash (ECDSA P-256, valid at most 14 days), e.g.:
#
#   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 10 \
#     -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 -keyout /tmp/chat.key -out /tmp/chat.crt
#   CHAT_WEBTRANSPORT_URL=https://127.0.0.1:8443 CHAT_CERT=/tmp/chat.crt gem/exe/puma-plus \
#     -b tcp://127.0.0.1:9292 -b 'ssl://127.0.0.1:8443?cert=/tmp/chat.crt&key=/tmp/chat.key' \
#     --bundles h1,h2,h3 examples/webtransport_chat/config.ru
#
# then open http://127.0.0.1:9292/ (a browser without WebTransport, or ?transport=websocket, uses a
# WebSocket to the same route instead; ?webtransport=https://HOST:PORT names the HTTP/3 listener instead of
# CHAT_WEBTRANSPORT_URL).
require_relative "app"

run WebTransportChat.new(webtransport_url: ENV["CHAT_WEBTRANSPORT_URL"], certificate: ENV["CHAT_CERT"])
