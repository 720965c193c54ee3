# Shoebox in a container: build with the Swift toolchain on bookworm, run on bookworm-slim.
# Usage: docker build -t shoebox . && docker run --rm -v /photos:/photos:ro shoebox probe /photos

FROM swift:6.3-bookworm AS build
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        libexif-dev libheif-dev libavformat-dev libavcodec-dev libswscale-dev libsqlite3-dev libvips-dev libxxhash-dev pkg-config make \
        python3 python3-pip \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift Makefile ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Tools ./Tools
RUN make install PREFIX=/out MANPAGES=0

# The media libraries are loaded by soname when first used, not linked (docs/architecture.md): ldd does not
# list them, so each runtime package is named in deploy/runtime-packages.txt (one list: the rootfs test that
# proves this stage without a Docker engine reads the same file; README "Docker").
FROM debian:bookworm-slim
COPY deploy/runtime-packages.txt /tmp/runtime-packages.txt
RUN apt-get update -q && grep -v '^#' /tmp/runtime-packages.txt | xargs env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt \
    && useradd --system --uid 10001 --home-dir /work --create-home shoebox
COPY --from=build /out/bin/shoebox /usr/local/bin/shoebox
# The offline gazetteer (GeoNames, CC BY 4.0): found as <prefix>/share/shoebox/gazetteer.bin.
COPY --from=build /out/share/shoebox/gazetteer.bin /usr/local/share/shoebox/gazetteer.bin
USER shoebox
WORKDIR /work
ENTRYPOINT ["shoebox"]
CMD ["--help"]
