# A page that waits on a slower service before it answers, as most pages of a real app do (another API, a
# search index): GET /report?wait=24 sleeps 24 ms (0 to 1,000 ms), standing in for that call, then counts
# the rows and renders the newest. The autoscaling step on Rails (bench/scenarios/elastic-rails.scenario)
# GETs it: its time is mostly waiting, so capacity is slots, not CPU.
class ReportsController < ApplicationController
  def show
    sleep(Integer(params.fetch(:wait, 0)).clamp(0, 1000) / 1000.0)
    @count = Row.count
    @newest = Row.order(:id).last
    render layout: false
  end
end
