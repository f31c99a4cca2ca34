# The Rack conformance app: every path exercises one part of the Rack spec (request kinds, body kinds,
# hijack, early hints, rack.errors, rack.response_finished) and the whole app runs inside the loaded rack's
# own Rack::Lint — Rack 2.2 from Debian, or Rack 3.1 when the test puts trixie's rack first on RUBYLIB.
# Every Lint violation, wherever it is raised (in the app, in a body method the server calls, in a hijack
# callable), is appended to the file named by LINT_LOG, which the test requires to stay empty.
require "digest"
require "json"
require "rack"
require "rack/lint"
require "rack/head"
require "rack/request"
require "rack/body_proxy"
require "uri" # Rack 2.2's Lint uses URI without requiring it

RACK3 = Rack.release.split(".").first.to_i >= 3
LINT_LOG = ENV.fetch("LINT_LOG")
CLOSES = Hash.new(0)
FINISHED = []
STATE_LOCK = Mutex.new

# Records a Lint violation (with the request it happened in) for the test to find.
def record_lint(env, error)
  File.open(LINT_LOG, "a") do |f|
    f.flock(File::LOCK_EX)
    f.write("#{env && env['REQUEST_METHOD']} #{env && env['PATH_INFO']}: #{error.class}: #{error.message}\n")
  end
end

# Wraps Lint's response body so a violation raised while the server drives the body (each, call, to_ary,
# to_path, close) is recorded too. Answers respond_to? exactly as the wrapped body, so the server sees the
# same body kind Lint passed on.
class RecordingBody
  METHODS = %i[each call to_ary to_path close].freeze

  def initialize(body, env)
    @body = body
    @env = env
  end

  def respond_to?(name, include_all = false)
    METHODS.include?(name) ? @body.respond_to?(name, include_all) : super
  end

  def each(&block)
    guard { @body.each(&block) }
  end

  def call(stream)
    guard { @body.call(stream) }
  end

  def to_ary
    guard { @body.to_ary }
  end

  def to_path
    guard { @body.to_path }
  end

  def close
    guard { @body.close }
  end

  private

  def guard
    yield
  rescue Rack::Lint::LintError => e
    record_lint(@env, e)
    raise
  end
end

# The outermost middleware: runs Lint(app) and records any LintError, answering 500 when it escaped call.
class LintRecorder
  def initialize(app)
    @app = app
  end

  def call(env)
    status, headers, body = @app.call(env)
    [status, headers, RecordingBody.new(body, env)]
  rescue Rack::Lint::LintError => e
    record_lint(env, e)
    [500, { "content-type" => "text/plain" }, ["lint violation: #{e.message}\n"]]
  end
end

def json(object, status: 200)
  body = JSON.generate(object)
  [status, { "content-type" => "application/json", "content-length" => body.bytesize.to_s }, [body]]
end

def text(body, status: 200, headers: {})
  [status, { "content-type" => "text/plain" }.merge(headers), [body]]
end

# A body answering each only (no to_ary): the server must stream it.
class EachBody
  def initialize(chunks, kind)
    @chunks = chunks
    @kind = kind
  end

  def each(&block)
    @chunks.each(&block)
  end

  def close
    STATE_LOCK.synchronize { CLOSES[@kind] += 1 }
  end
end

# A file body: to_path names a readable file; each reads it (for servers that do not use the path).
class PathBody
  def initialize(path)
    @path = path
  end

  def to_path
    @path
  end

  def each
    STATE_LOCK.synchronize { CLOSES["path each"] += 1 } # counts reads through Ruby
    File.open(@path, "rb") { |f| while (chunk = f.read(16_384)) do yield chunk end }
  end

  def close
    STATE_LOCK.synchronize { CLOSES["path"] += 1 }
  end
end

# A Rack 3 streaming body: call(stream) writes and closes the stream.
class StreamBody
  def call(stream)
    stream.write("streamed ")
    stream.write("in ")
    stream.write("parts\n")
  ensure
    stream.close
  end

  def close
    STATE_LOCK.synchronize { CLOSES["stream"] += 1 }
  end
end

FILE_BODY = File.join(Dir.tmpdir, "puma-plus-conformance-#{Process.pid}.txt")

app = lambda do |env|
  request = Rack::Request.new(env)
  case env["PATH_INFO"]
  when "/env"
    if env["REQUEST_METHOD"] == "OPTIONS"
      [204, { "allow" => "GET, HEAD, OPTIONS, POST" }, []]
    else
      params = request.GET
      json({ "method" => env["REQUEST_METHOD"], "path" => env["PATH_INFO"], "query" => env["QUERY_STRING"],
           "name" => params["name"], "raw_hex" => params["raw"].to_s.unpack1("H*"),
           "multi" => env["HTTP_X_MULTI"], "protocol" => env["SERVER_PROTOCOL"],
           "scheme" => env["rack.url_scheme"], "rack_release" => Rack.release,
           "rack_version" => env["rack.version"], "hijack?" => env["rack.hijack?"],
           "request_id" => env["puma_plus.request_id"], "input_class" => env["rack.input"].class.name })
    end
  when "/form"
    json(request.POST)
  when "/upload"
    file = request.POST["file"]
    data = file[:tempfile].read
    json({ "field" => request.POST["field"], "filename" => file[:filename], "type" => file[:type],
         "size" => data.bytesize, "sha256" => Digest::SHA256.hexdigest(data) })
  when "/digest"
    data = env["rack.input"].read
    json({ "size" => data.bytesize, "sha256" => Digest::SHA256.hexdigest(data),
         "content_length" => env["CONTENT_LENGTH"], "chunked" => env["HTTP_TRANSFER_ENCODING"] })
  when "/bytes"
    size = Integer(request.GET.fetch("n"))
    body = ("0123456789abcdef" * ((size / 16) + 1)).byteslice(0, size)
    [200, { "content-type" => "application/octet-stream", "content-length" => size.to_s }, [body]]
  when "/multi"
    cookies = RACK3 ? ["a=1; path=/", "b=2; path=/"] : "a=1; path=/\nb=2; path=/"
    text("two cookies\n", headers: { "set-cookie" => cookies })
  when "/body/array"
    text("array body\n")
  when "/body/each"
    [200, { "content-type" => "text/plain" }, EachBody.new(["each ", "body\n"], "each")]
  when "/body/proxy"
    inner = ["proxied body\n"]
    [200, { "content-type" => "text/plain" },
     Rack::BodyProxy.new(inner) { STATE_LOCK.synchronize { CLOSES["proxy"] += 1 } }]
  when "/body/path"
    File.write(FILE_BODY, "file body\n" * 1000)
    [200, { "content-type" => "text/plain", "content-length" => File.size(FILE_BODY).to_s }, PathBody.new(FILE_BODY)]
  when "/body/partial-path" # a 206 must not send the whole file: the server iterates each instead
    File.write(FILE_BODY, "file body\n" * 1000)
    [206, { "content-type" => "text/plain", "content-range" => "bytes 0-9999/10000" }, PathBody.new(FILE_BODY)]
  when "/body/stream"
    [200, { "content-type" => "text/plain" }, StreamBody.new]
  when "/closes"
    STATE_LOCK.synchronize { json({ "closes" => CLOSES, "finished" => FINISHED }) }
  when "/errors"
    errors = env["rack.errors"]
    errors.puts "conformance #{request.GET['tag']} puts"
    errors.write "conformance #{request.GET['tag']} write\n"
    errors.flush
    env["rack.logger"]&.info("conformance #{request.GET['tag']} logger")
    text(env["puma_plus.request_id"].to_s)
  when "/finished"
    env["rack.response_finished"] << lambda { |_env, status, _headers, error|
      STATE_LOCK.synchronize { FINISHED << [status, error&.class&.name] }
    }
    text("finished soon\n")
  when "/hints"
    env["rack.early_hints"].call("link" => "</style.css>; rel=preload; as=style")
    text("hinted\n")
  when "/hijack/full"
    io = env["rack.hijack"].call
    io.write("HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\nfull hijack ready\n")
    line = io.gets
    io.write("echo #{line.to_s.upcase}")
    io.close_write # half-close: the client reads EOF and may still send
    rest = io.read # up to the client's own FIN
    STATE_LOCK.synchronize { FINISHED << ["after close_write", rest] }
    io.close
    [200, {}, []]
  when "/hijack/partial"
    hijack = lambda do |io|
      io.write("partial hijack ready\n")
      line = io.read(5)
      io.write("echo #{line.to_s.upcase}\n")
      io.close
    end
    [200, { "content-type" => "text/plain", "rack.hijack" => hijack }, []]
  else
    text("not found\n", status: 404)
  end
end

use LintRecorder
use Rack::Lint
use Rack::Head
run app
