# The strict-parsing tests' app: appends one line per request it is called with ("METHOD PATH_INFO") to
# the file named by $REQUEST_LOG, so a test can prove a refused request never reached the app, and answers
# with the env entries that name the server, as JSON, so a test can see which authority won.
require "json"

LOG = ENV.fetch("REQUEST_LOG")

run lambda { |env|
  File.open(LOG, "a") { |f| f.flock(File::LOCK_EX); f.write("#{env['REQUEST_METHOD']} #{env['PATH_INFO']}\n") }
  env["rack.input"]&.read
  named = env.slice("PATH_INFO", "QUERY_STRING", "SERVER_NAME", "SERVER_PORT", "HTTP_HOST")
  body = JSON.generate(named.transform_values { |value| value.dup.force_encoding(Encoding::UTF_8).scrub })
  [200, { "Content-Type" => "application/json", "Content-Length" => body.bytesize.to_s }, [body]]
}
