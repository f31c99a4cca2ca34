# frozen_string_literal: true

# Makefile for PumaPlus::Wire::NativeCodec, the C half of the worker's wire codec (native_codec.c). Built by
# script/native with the headers of each Ruby it is given (Debian's ruby-dev for 3.1), and by `gem install`;
# the gem runs on the pure-Ruby codec when it is absent.
require_relative "../../extconf_support"

$CFLAGS << " -O2 -Wall -Wextra -Wno-unused-parameter -std=c99"
# One directory per Ruby ABI (3.1.0, 3.3.0): a checkout holds a build for each Ruby it runs on, and a Ruby
# never loads another's.
create_makefile("puma_plus/wire/#{RbConfig::CONFIG['ruby_version']}/native_codec")
