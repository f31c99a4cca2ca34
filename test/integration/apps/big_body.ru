# The large-response probe: ?chunks= bodies of 64 KiB each (default 80, 5 MiB), chunk i filled with the
# letter i mod 26, yielded one by one with no Content-Length, so a test can check every byte arrived in order.
CHUNK = 65_536

run lambda { |env|
  count = Integer(env["QUERY_STRING"][/chunks=(\d+)/, 1] || "80")
  body = Enumerator.new { |y| count.times { |i| y << (("a".ord + (i % 26)).chr * CHUNK) } }
  [200, { "Content-Type" => "application/octet-stream" }, body]
}
