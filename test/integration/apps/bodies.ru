# The body tests' app (body_spool_test.rb, slow_reader_test.rb): POST /upload answers what the app saw of
# rack.input (its class, size, SHA-256, and whether a second read after rewind gives the same bytes);
# GET /large?kib=N answers N KiB in 64 KiB chunks with a Content-Length; anything else answers "ok".
# With `?log=PATH` every call appends its PATH_INFO to PATH, so a test can prove what the app never saw.
require "digest"
require "json"
require "rack"

CHUNK = 64 * 1024

run lambda { |env|
  query = Rack::Utils.parse_query(env["QUERY_STRING"])
  File.open(query["log"], "a") { |f| f.flock(File::LOCK_EX); f.write("#{env['PATH_INFO']}\n") } if query["log"]
  case env["PATH_INFO"]
  when "/upload"
    input = env["rack.input"]
    data = input.read
    input.rewind
    again = input.read
    body = JSON.generate("class" => input.class.name, "size" => data.bytesize,
                         "sha256" => Digest::SHA256.hexdigest(data), "rewound" => again == data)
    [200, { "content-type" => "application/json", "content-length" => body.bytesize.to_s }, [body]]
  when "/large"
    kib = Integer(query.fetch("kib", "1024"))
    chunks = Enumerator.new { |y| (kib * 1024 / CHUNK).times { |i| y << (("a".ord + (i % 26)).chr * CHUNK) } }
    [200, { "content-type" => "application/octet-stream", "content-length" => (kib / 64 * CHUNK).to_s }, chunks]
  else
    [200, { "content-type" => "text/plain", "content-length" => "3" }, ["ok\n"]]
  end
}
