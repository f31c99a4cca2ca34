# The integration tests' probe app: each path exposes one server behaviour (echoing the body's length and
# digest, two Set-Cookie headers, sleeping, reporting the worker's pid) so a test can assert it over raw
# HTTP. With `?log=PATH` every call appends "PATH_INFO id pid" to PATH when the app starts it, which lets
# a test prove what the app did (or never) see. `/timing/TAG` reports the request's timing as the app saw it;
# `/hints` sends 103 Early Hints first.
require "digest"
require "json"
require "rack"

def text(body, status: 200, headers: {})
  [status, { "Content-Type" => "text/plain", "Content-Length" => body.bytesize.to_s }.merge(headers), [body]]
end

run lambda { |env|
  query = Rack::Utils.parse_query(env["QUERY_STRING"])
  if (log = query["log"])
    File.open(log, "a") { |f| f.flock(File::LOCK_EX); f.write("#{env['PATH_INFO']} #{query['id']} #{Process.pid}\n") }
  end

  case env["PATH_INFO"]
  when "/"
    text("hello\n")
  when "/echo" # the request body as the app read it
    body = env["rack.input"].read
    text("#{env['REQUEST_METHOD']} len=#{body.bytesize} sha256=#{Digest::SHA256.hexdigest(body)}\n")
  when "/cookies" # Rack 2: several values of one header are joined with "\n"
    text("two cookies\n", headers: { "Set-Cookie" => "a=1; Path=/\nb=2; Path=/" })
  when "/sleep", "/slow", "/fast" # sleeps ?ms= (default 0; /slow: 2000), answers "id pid"
    File.write(query["pidfile"], Process.pid.to_s) if query["pidfile"]
    sleep Integer(query.fetch("ms", env["PATH_INFO"] == "/slow" ? "2000" : "0")) / 1000.0
    text("#{query['id']} #{Process.pid}\n")
  when "/pid"
    text("#{Process.pid}\n")
  when "/slot" # sleeps ?ms= (default 0), answers what served the request and where: "fiber 1234"
    sleep Integer(query.fetch("ms", "0")) / 1000.0
    text("#{env['puma_plus.slot_kind']} #{Process.pid}\n")
  when "/hints" # a 103 Early Hints before the answer, where the protocol can send one
    env["rack.early_hints"]&.call("Link" => "</style.css>; rel=preload; as=style")
    text("hinted\n")
  when %r{\A/timing/[^/]+\z} # reads the whole body, sleeps ?ms=, answers the puma_plus.* timing env as JSON
    body = env["rack.input"].read
    sleep Integer(query.fetch("ms", "0")) / 1000.0
    timing = %w[queue_time_ns body_wait_ns runnable_at_ns].to_h { |key| [key, env["puma_plus.#{key}"]] }
    text(JSON.generate(timing.merge("body_bytes" => body.bytesize, "pid" => Process.pid)) + "\n",
         headers: { "Content-Type" => "application/json" })
  else
    text("not found: #{env['PATH_INFO']}\n", status: 404)
  end
}
