# Lists the rows (HTML) and inserts one from the form's POST, then redirects back to the list. The Rails 7.2
# example (examples/rails72) links to this file.
class RowsController < ApplicationController
  def index
    @rows = Row.order(:id)
    @row = Row.new
  end

  def create
    @row = Row.new(params.require(:row).permit(:name))
    if @row.save
      redirect_to rows_path, notice: "Added #{@row.name}."
    else
      @rows = Row.order(:id)
      # 422 by number: Rack 3.1 (Rails 7.2) calls it :unprocessable_content, Rack 2.2 :unprocessable_entity.
      render :index, status: 422
    end
  end
end
