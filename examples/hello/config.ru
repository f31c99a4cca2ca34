# The smallest Rack app puma-plus serves: `script/run` puts it on http://127.0.0.1:9292.
run ->(_env) { [200, { "Content-Type" => "text/plain" }, ["Hello from puma-plus\n"]] }
