# HTTP/2 frames as the integration tests' raw clients write and read them (RFC 9113 section 4.1): the
# frame header, the types and flags they use, and header fields as HPACK literals without indexing and
# without Huffman coding (RFC 7541 sections 5.1, 5.2, 6.2.2), so that no test needs an HTTP/2 library.
#
#   +-----------------------------------------------+
#   |                 Length (24)                   |
#   +---------------+---------------+---------------+
#   |   Type (8)    |   Flags (8)   |
#   +-+-------------+---------------+-------------------------------+
#   |R|                 Stream Identifier (31)                      |
#   +=+=============================================================+
#   |                   Frame Payload (0...)                      ...
#   +---------------------------------------------------------------+
module H2Frames
  PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".b
  HEADER = "CnCCN" # length high byte, length low 16 bits, type, flags, stream
  DATA = 0x0
  HEADERS = 0x1
  RST_STREAM = 0x3
  SETTINGS = 0x4
  GOAWAY = 0x7
  END_STREAM = 0x1
  ACK = 0x1
  END_HEADERS = 0x4

  Frame = Struct.new(:type, :flags, :stream, :payload)

  def frame(type, flags, stream, payload)
    [payload.bytesize >> 16, payload.bytesize & 0xffff, type, flags, stream].pack(HEADER) + payload.b
  end

  # A header field as a literal without indexing, with a literal name.
  def literal(name, value)
    "\x00".b + hpack_string(name) + hpack_string(value)
  end

  # An HPACK string literal: its length as an integer with a 7-bit prefix, then its bytes.
  def hpack_string(text)
    length = text.bytesize
    return [length].pack("C") + text.b if length < 127

    bytes = [127]
    rest = length - 127
    while rest >= 128
      bytes << ((rest % 128) + 128)
      rest /= 128
    end
    (bytes << rest).pack("C*") + text.b
  end

  # The first whole frame of +buffer+ and the bytes after it, or nil while the frame is incomplete.
  def take_frame(buffer)
    return nil if buffer.bytesize < 9

    length = (buffer.getbyte(0) << 16) | buffer.byteslice(1, 2).unpack1("n")
    return nil if buffer.bytesize < 9 + length

    f = Frame.new(buffer.getbyte(3), buffer.getbyte(4), buffer.byteslice(5, 4).unpack1("N") & 0x7fff_ffff,
                  buffer.byteslice(9, length))
    [f, buffer.byteslice((9 + length)..)]
  end
end
