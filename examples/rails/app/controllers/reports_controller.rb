# A page that waits on a slower service before it answers, as most pages of a real app do (another API, a
# search index): GET /report?wait=24 sleeps 24 ms (0 to 1,000 ms), standing in for that call, then counts
# the rows and renders the newest. The autoscaling step on Rails (bench/scenarios/elastic-rails.scenario)
# GETs it: its time is mostly waiting, so capacity is slots, not CPU. A wait that is not a whole number is
# answered 400.
class ReportsController < ApplicationController
  def show
    wait = Integer(params.fetch(:wait, 0), exception: false)
    return head(:bad_request) unless wait

    sleep(wait.clamp(0, 1000) / 1000.0)
    @count = Row.count
    @newest = Row.order(:id).last
    render layout: false
  end
end
