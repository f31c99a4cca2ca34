# The env-identity probe: answers with the env pairs the worker built from the host's REQUEST frame, in
# frame order, as JSON [[name, value], ...], so a test can compare what each protocol produced. Entries the
# worker adds itself (the rack.* prototype, the puma_plus.* timing Integers, rack.input) are left out:
# only String values, which all come from the frame (plus the prototype's two constant strings).
require "json"

PROTOTYPE_ONLY = %w[SERVER_SOFTWARE].freeze

run lambda { |env|
  pairs = env.select { |name, value| value.is_a?(String) && !PROTOTYPE_ONLY.include?(name) }
             .map { |name, value| [name, value.dup.force_encoding(Encoding::UTF_8).scrub] }
  body = JSON.generate(pairs)
  [200, { "Content-Type" => "application/json", "Content-Length" => body.bytesize.to_s }, [body]]
}
