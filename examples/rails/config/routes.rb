# The example's two pages: the list of rows with its form, and the form's POST.
Rails.application.routes.draw do
  root "rows#index"
  resources :rows, only: [:index, :create]
end
