# Base controller: CSRF protection stays on, so clients post the form's authenticity token with the session
# cookie, exactly as a browser does.
class ApplicationController < ActionController::Base
  protect_from_forgery with: :exception
end
