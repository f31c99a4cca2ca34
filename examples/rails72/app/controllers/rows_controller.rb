# Lists the rows (HTML) and inserts one from the form's POST, then redirects back to the list.
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
      render :index, status: :unprocessable_content
    end
  end
end
