# The example's pages: the list of rows with its form, the form's POST, and a streamed page (Live).
Rails.application.routes.draw do
  root "rows#index"
  resources :rows, only: [:index, :create]
  get "stream", to: "streams#show"
end
