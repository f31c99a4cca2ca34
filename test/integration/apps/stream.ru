# The streaming probe: yields ?n= events (default 10), ?ms= apart (default 100), each "event I\n", from a
# body whose #each sleeps between them, so a test can see whether each reaches the client as it is yielded.
class Events
  def initialize(count, gap)
    @count = count
    @gap = gap
  end

  def each
    @count.times do |i|
      sleep @gap if i.positive?
      yield "event #{i}\n"
    end
  end
end

run lambda { |env|
  query = Rack::Utils.parse_query(env["QUERY_STRING"])
  [200, { "Content-Type" => "text/plain" },
   Events.new(Integer(query.fetch("n", "10")), Integer(query.fetch("ms", "100")) / 1000.0)]
}
