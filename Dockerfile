# The tokenmill worker image (Debian 12), for `tokenmill launch k8s` and any container runner.
#
#   docker build -t REGISTRY/tokenmill:VERSION .
#   docker run --rm REGISTRY/tokenmill:VERSION --version
#   docker run --rm -e AWS_ACCESS_KEY_ID -e AWS_SECRET_ACCESS_KEY REGISTRY/tokenmill:VERSION \
#     work s3://bucket/job --threads 4
#
# Two stages: the build stage installs the build dependencies (the apt packages of
# scripts/install-deps.sh that a build needs) and builds the binary; the runtime stage holds only
# the binary and the runtime libraries. See docs/launchers.md.

FROM debian:12 AS build
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends \
      cmake ninja-build g++ pkg-config ca-certificates \
      libtomlplusplus-dev libcli11-dev nlohmann-json3-dev libsimdjson-dev libfmt-dev \
      libutf8proc-dev libpcre2-dev zlib1g-dev libzstd-dev libcurl4-openssl-dev libssl-dev libicu-dev \
      libsnappy-dev liblz4-dev libbrotli-dev libmimalloc-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DTOKENMILL_TESTS=OFF -DTOKENMILL_BENCH=OFF \
 && cmake --build /build --target tokenmill \
 && cmake --install /build --prefix /out/usr/local --strip

FROM debian:12-slim AS runtime
ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update -q \
 && apt-get install -y -q --no-install-recommends \
      ca-certificates libcurl4 libssl3 libtomlplusplus3 libsimdjson14 libutf8proc2 \
      libpcre2-8-0 libzstd1 zlib1g libicu72 libsnappy1v5 liblz4-1 libbrotli1 libmimalloc2.0 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /work --create-home tokenmill
COPY --from=build /out/ /
# Fails the image build if a runtime library is missing (libcurl is not linked but loaded when a
# remote path is first used: ldd does not list it).
RUN ! ldd /usr/local/bin/tokenmill | grep 'not found' && tokenmill --version \
 && ldconfig -p | grep -q 'libcurl[.]so[.]4 '
USER tokenmill
WORKDIR /work
ENTRYPOINT ["tokenmill"]
CMD ["--help"]
