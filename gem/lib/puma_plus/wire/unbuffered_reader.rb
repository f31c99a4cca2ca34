# frozen_string_literal: true

# Lets Frame.read take one frame from a socket without Ruby's read buffer: sysread asks the kernel for
# that frame's bytes only, so every byte after it stays in the socket, where code working on the file
# descriptor itself also finds it. A worker's hijack connection reads its WELCOME through this, since the
# client's raw bytes follow it.

module PumaPlus
  module Wire
    class UnbufferedReader
      def initialize(io)
        @io = io
      end

      # +length+ bytes (fewer only when the stream ends), nil when it ends before the first; as IO#read.
      def read(length)
        data = +"".b
        data << @io.sysread(length - data.bytesize) while data.bytesize < length
        data
      rescue EOFError
        data.empty? ? nil : data
      end
    end
  end
end
