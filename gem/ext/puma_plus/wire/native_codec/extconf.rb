# frozen_string_literal: true

# Makefile for PumaPlus::Wire::NativeCodec, the C half of the worker's wire codec (native_codec.c). Built by
# script/build with Debian's ruby-dev headers; the gem runs on the pure-Ruby codec when it is absent.
require "mkmf"

$CFLAGS << " -O2 -Wall -Wextra -Wno-unused-parameter -std=c99"
create_makefile("puma_plus/wire/native_codec")
