# The example's pages: the list of rows with its form, the form's POST, a streamed page (Live) and a report
# that waits on a slower service first.
Rails.application.routes.draw do
  root "rows#index"
  resources :rows, only: [:index, :create]
  get "stream", to: "streams#show"
  get "report", to: "reports#show"
end
