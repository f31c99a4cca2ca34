# The browser probe: an HTML page that says which protocol carried it (SERVER_PROTOCOL), so a headless
# browser's --dump-dom shows whether it loaded the page over HTTP/3.
run lambda { |env|
  body = "<!doctype html><html><head><title>puma-plus</title></head>" \
         "<body><p id=\"protocol\">#{env['SERVER_PROTOCOL']}</p></body></html>"
  [200, { "Content-Type" => "text/html", "Content-Length" => body.bytesize.to_s }, [body]]
}
