# The large-response probe: ?chunks= bodies of 64 KiB each (default 80, 5 MiB), chunk i filled with the
# letter i mod 26, yielded one by one with no Content-Length, so a test can check every byte arrived in order;
# with ?fail_after=N the body raises after its N-th chunk, once the head and part of the body are sent.
CHUNK = 65_536

run lambda { |env|
  query = Rack::Utils.parse_query(env["QUERY_STRING"])
  count = Integer(query.fetch("chunks", "80"))
  fail_after = query["fail_after"] && Integer(query["fail_after"])
  body = Enumerator.new do |y|
    count.times do |i|
      raise "big_body: failing after #{i} chunks, as asked" if i == fail_after

      y << (("a".ord + (i % 26)).chr * CHUNK)
    end
  end
  [200, { "Content-Type" => "application/octet-stream" }, body]
}
