# frozen_string_literal: true

# The gem's version, read by the gemspec and printed by `puma-plus --version`; it sits outside the
# request path.
module PumaPlus
  VERSION = "0.1.0"
end
