# Shoebox — the two set-up commands are `make demo` and `make test`.
SHELL := /bin/bash
APT_PACKAGES := libexif-dev libheif-dev libavformat-dev libavcodec-dev libswscale-dev libsqlite3-dev \
                libvips-dev libxxhash-dev pkg-config ffmpeg libimage-exiftool-perl libheif-examples \
                strace python3
SWIFT ?= swift

.PHONY: deps build release install demo test bench clean

# Installs the Debian packages that are missing (needs root or sudo; a no-op when all are present).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing: $$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q -o DPkg::Lock::Timeout=600 $$missing; \
	fi

build: deps
	$(SWIFT) build

# The release binary links the Swift runtime statically (start-up: fewer shared objects to map). The media
# libraries are not linked at all: they are loaded when first used (docs/architecture.md, "Lazy media
# libraries"); where only the runtime packages are installed, they are named one by one (Dockerfile).
RELEASE_FLAGS := -c release --static-swift-stdlib --product shoebox
PREFIX ?= /usr/local

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

# Builds and installs the release binary as $(DESTDIR)$(PREFIX)/bin/shoebox (no apt: the Docker build runs it).
install:
	$(SWIFT) build $(RELEASE_FLAGS)
	install -D -m 755 "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/shoebox" "$(DESTDIR)$(PREFIX)/bin/shoebox"

# Builds, then runs the main job on the bundled sample: assemble it, ingest it into a catalog, show
# what the catalog holds. (The sample contains deliberately broken files: exit status 1 is expected.)
DEMO_CATALOG ?= .build/demo.sqlite
demo: build
	@test -d Fixtures/generated || python3 Fixtures/generate.py
	$(SWIFT) run shoebox inspect --format table Fixtures/generated/library || test $$? -eq 1
	rm -f $(DEMO_CATALOG) $(DEMO_CATALOG)-wal $(DEMO_CATALOG)-shm
	$(SWIFT) run shoebox ingest --catalog $(DEMO_CATALOG) --progress none Fixtures/generated/library || test $$? -eq 1
	$(SWIFT) run shoebox errors --catalog $(DEMO_CATALOG)

test: deps
	$(SWIFT) test

bench: release
	bash Benchmarks/compare-exiftool.sh

clean:
	rm -rf .build
