# A config/puma.rb that loads a solid_queue-shaped plugin from this directory's lib/ (on the load path by
# puma's -I) and sets the plugin's own directive.
plugin :job_supervisor
job_supervisor_mode :fork
