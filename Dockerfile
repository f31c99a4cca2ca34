# The puma-plus container image. The build stage runs the project's own steps: script/setup (Debian
# packages), script/build (the Java host and bundles into gem/vendor/java) and deploy/jlink-runtime (a Java
# runtime cut to the modules the host uses); the runtime stage is Debian slim with Ruby, Rack, the gem and
# that runtime, and nothing else.
#
# Not built in this repository's CI: its machine has the docker client but no daemon (nor podman or
# buildah), so no image can be built there. What runs without one is tested: container_runtime_test.rb
# (test/integration) builds the runtime with deploy/jlink-runtime and serves requests from the real host
# on it.
#
#   docker build -t puma-plus .
#   docker run --rm -p 9292:9292 puma-plus                              # examples/hello
#   docker run --rm -p 9292:9292 -v "$PWD:/app" puma-plus               # your config.ru
# /metrics (for Prometheus, deploy/) is on the control listener: add
#   --control-url tcp://0.0.0.0:9293 --control-token TOKEN
# to the command and scrape /metrics?token=TOKEN; never publish that port outside the cluster.

ARG DEBIAN=bookworm

# script/setup expects Temurin 25 at this path (Debian 12's own JDKs stop at 17); the official Temurin
# image carries it, built for any glibc Linux.
FROM eclipse-temurin:25-jdk AS jdk

FROM debian:${DEBIAN} AS build
COPY --from=jdk /opt/java/openjdk /usr/lib/jvm/temurin-25-jdk-amd64
WORKDIR /src
COPY . .
RUN script/setup && script/build && deploy/jlink-runtime /opt/puma-plus/jre

FROM debian:${DEBIAN}-slim
# Ruby and Rack from Debian, as script/setup installs them; an app's own gems belong in an image built FROM
# this one.
RUN apt-get update && apt-get install -y --no-install-recommends ruby ruby-rack \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home-dir /app --shell /usr/sbin/nologin puma
COPY --from=build /opt/puma-plus/jre /opt/puma-plus/jre
COPY --from=build /src/gem/exe /opt/puma-plus/gem/exe
COPY --from=build /src/gem/lib /opt/puma-plus/gem/lib
COPY --from=build /src/gem/vendor /opt/puma-plus/gem/vendor
COPY examples/hello/config.ru /app/config.ru
# The launcher runs $JAVA_HOME/bin/java (gem/lib/puma_plus/launcher.rb).
ENV JAVA_HOME=/opt/puma-plus/jre PATH=/opt/puma-plus/gem/exe:$PATH RACK_ENV=production
WORKDIR /app
USER puma
EXPOSE 9292
CMD ["puma-plus", "-b", "tcp://0.0.0.0:9292", "config.ru"]
