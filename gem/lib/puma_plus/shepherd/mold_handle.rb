# frozen_string_literal: true

# The shepherd's handle on fork_worker's mold (shepherd → mold → worker): its pid and the socket the fork
# commands go over. Kept by PumaPlus::Shepherd::Refork.

module PumaPlus
  class Shepherd
    # The mold: its pid and the shepherd's end of its mold socket.
    MoldHandle = Struct.new(:pid, :socket)
  end
end
