# Reel: two commands on a fresh Debian 12 machine.
#   make run   installs what is missing, builds, records a 5-second clip into recordings/, prints the result
#   make test  installs what is missing and runs the whole test suite
SWIFT ?= swift
# FFmpeg's libraries and CLI (the CLI serves tests as an independent oracle), pkg-config for the build,
# Xvfb and xsetroot for the screen-capture tests, python3 for the benchmark harness, GStreamer, MediaInfo and
# Chromium (headless <video>) as readers of every kind of file Reel writes, with Firefox ESR (headless <video>,
# played to the end), MPlayer (its own mov demuxer), exiftool (a tag-writing round trip), and libquicktime and
# libxine (its QuickTime demuxer, ffmpeg decoders and raw video driver) for small C probes in Tests/IndependentReaders;
# a C compiler for the write-log shim and those probes, libmicrohttpd for reel serve, chromium-driver with
# python3-selenium to test its page in a real browser, and the servers live pushes are tested against:
# srt-live-transmit (srt-tools), nginx with its RTMP module, iproute2 for a network namespace with small TCP buffers;
# man-db and systemd's systemd-analyze to check what make install writes; fonts-dejavu-core for the overlays' default font.
PACKAGES := libavdevice-dev libavformat-dev libavcodec-dev libavfilter-dev libswscale-dev libswresample-dev \
            libavutil-dev pkg-config ffmpeg xvfb x11-xserver-utils python3 \
            gstreamer1.0-tools gstreamer1.0-plugins-base-apps gstreamer1.0-plugins-good gstreamer1.0-libav mediainfo chromium \
            firefox-esr mplayer libimage-exiftool-perl libquicktime-dev libxine2-dev libxine2-misc-plugins libxine2-ffmpeg \
            gcc libc6-dev pulseaudio pulseaudio-utils libmicrohttpd-dev chromium-driver python3-selenium \
            srt-tools nginx-light libnginx-mod-rtmp iproute2 python3-prometheus-client man-db systemd fonts-dejavu-core
REEL := .build/debug/reel

.PHONY: deps build run test clean release function-order bench bench-quick check-tsan check-leaks fuzz fuzz-quick long-test \
        fake-camera slurm-test power-cut-deps power-cut-test install uninstall install-test deb deb-test

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build

# The release binary carries the Swift runtime and Foundation inside (static): nothing of Swift's to load and
# relocate at start-up (-15 ms, -7 MB resident against the shared libraries). lld packs the relative
# relocations (DT_RELR, glibc 2.36+: 1.7 MB of records become 14 KB) and puts the functions commands really
# run next to each other (linker/hot-functions.order, from `make function-order`): -2.7 MB resident code.
# It exports no symbols (SwiftPM links executables with --export-dynamic: 5,300 names of Reel's public API in
# .dynsym/.dynstr, searched by the loader at every start; nothing loads reel as a library): -0.6 MB resident.
RELEASE_FLAGS := -c release --static-swift-stdlib -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections \
                 -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
                 -Xlinker --symbol-ordering-file=$(CURDIR)/linker/hot-functions.order -Xlinker --no-warn-symbol-ordering
release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

run: build
	@mkdir -p recordings
	$(REEL) record recordings/clip-$$(date +%Y%m%d-%H%M%S).mov --max-duration 5 --json

# Suites that time real devices, kills and live streams run after the rest, one test at a time, so encoders
# running in parallel on two cores cannot starve them. They wait on real time far more than they compute (about
# a quarter of two cores), so two groups of them run at once, one test at a time each: devices, clocks and kills
# (TIMED_DEVICE_SUITES), and live streams, servers and the control socket (TIMED_LIVE_SUITES), which SwiftPM's
# build lock would serialize, so the second runs the test binary itself; its output follows the first's.
TIMED_DEVICE_SUITES := MicrophoneCaptureTests|ScreenCaptureTests|CrashSafetyTests|EmulatedCameraTests|HEVCCommandTests|SlowOutputTests|MovieOutputTests|MovieOutputSharingTests|PhotoOutputTests|PauseTests|SegmentTests|InputSwitchTests|PulseAudioTests|AudioLevelsTests|AlarmTests|AlarmCommandTests|MetricsTests|ThumbnailTests
TIMED_LIVE_SUITES := LiveOverloadTests|ControlSocketTests|ServeAPITests|LiveOriginTests|CameraLiveStreamTests|LiveStreamTests|LowLatencyHLSTests|LiveServerTests|LiveJoinTests|LiveStreamOutputTests|HeldRequestsTests|ReplayBufferTests|ServeKeepingTests|ReplayCommandTests|ComposeLiveTests
TIMED_SUITES := $(TIMED_DEVICE_SUITES)|$(TIMED_LIVE_SUITES)
TEST_BINARY := .build/debug/ReelPackageTests.xctest
test: build fake-camera
	$(SWIFT) test --skip '$(TIMED_SUITES)'
	@$(TEST_BINARY) --testing-library swift-testing --no-parallel --filter '$(TIMED_LIVE_SUITES)' >.build/timed-live.log 2>&1 & live=$$!; \
	$(SWIFT) test --skip-build --no-parallel --filter '$(TIMED_DEVICE_SUITES)'; device=$$?; \
	wait $$live; live=$$?; echo "--- the live suites, run beside the device suites:"; cat .build/timed-live.log; \
	echo "timed suites: devices exit $$device, live exit $$live"; [ $$device = 0 ] && [ $$live = 0 ]
	/usr/bin/python3 Tests/Browser/page_test.py --reel $(REEL) --screenshots .build/page-screenshots

# Profiles typical commands with callgrind and rewrites linker/hot-functions.order (see linker/function_order.py).
# The map is reel's own: a change of link flags relinks every product, each writing the map (--product reel).
function-order: deps
	@command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
	rm -f .build/release/reel && $(SWIFT) build $(RELEASE_FLAGS) --product reel -Xlinker -Map=$(CURDIR)/.build/reel.map
	python3 linker/function_order.py .build/reel.map
	rm -f .build/release/reel && $(SWIFT) build $(RELEASE_FLAGS)

# The benchmark harness (benchmarks/bench.py): Reel and the ffmpeg CLI side by side on the same jobs.
bench: release
	python3 benchmarks/bench.py

# BENCH_ARGS: more options for bench.py (CI gives `--runs 1`: it checks the harness works, not the numbers).
bench-quick: release
	python3 benchmarks/bench.py --quick $(BENCH_ARGS)

# The suite under Thread Sanitizer (separate build folder; slower, so not part of make test): every untimed suite,
# and of the timed ones those that drive the engine's threads (control socket, pause, movie, photo and live
# outputs joining and leaving, replay saves, the HTTP server's parked requests, switching inputs, meters).
# The timed suites left out time devices, kills and segment lengths through the same code paths
# and take two thirds of the time under TSan; setting TSAN_TIMED_SUITES to TIMED_SUITES's list runs them all.
# REEL_SANITIZER turns off the checks of real-time behaviour that a 5-20x slowdown breaks (see RealTimeChecks).
# As in `make test`, the timed ones wait on real time more than they compute: two halves of similar length run at
# once (TSAN_TIMED_FIRST, and the rest through the test binary itself), one test at a time each. A filter matches
# a test's source file's name too: CameraLiveStreamTests, in LiveOriginTests.swift, goes with LiveOriginTests.
TSAN_TIMED_FIRST := ControlSocketTests|ReplayBufferTests|ComposeLiveTests|LiveOriginTests|CameraLiveStreamTests|InputSwitchTests|ServeKeepingTests|AlarmTests|HeldRequestsTests|ThumbnailTests|AudioLevelsTests
TSAN_TIMED_SECOND := PauseTests|ServeAPITests|LowLatencyHLSTests|LiveJoinTests|MovieOutputTests|MovieOutputSharingTests|LiveOverloadTests|LiveStreamOutputTests|PhotoOutputTests|MetricsTests
TSAN_TIMED_SUITES := $(TSAN_TIMED_FIRST)|$(TSAN_TIMED_SECOND)
# Untimed suites left out under TSan: the trim and join commands, whose Swift runs on one thread (SmartTrimTests,
# which encodes a trim's two parts at once, stays); and suites whose time goes to other programs or to one
# reader thread's demuxing and decoding, on the threads the suites kept already run: the independent readers
# (GStreamer, browsers, MPlayer ... reading plain recordings), damaged and real-world input files, the states a
# kill leaves, and HEVC (x265 in x264's place). Also left out: the recording of each built-in preset in turn
# (RecordingTierTests' other tests record tiers on the same threads; the presets differ in encoder settings only).
TSAN_UNTIMED_LEFT_OUT := TrimCommandTests|JoinCommandTests|IndependentReadersTests|CorruptMediaTests|RealWorldInputTests|FinalizationStatesTests|HEVCRecordingTests|tierProducesTheRightMovie
TSAN_ENVIRONMENT := REEL_SANITIZER=thread
check-tsan: deps
	$(SWIFT) build --build-tests --sanitize=thread --build-path .build-tsan
	$(TSAN_ENVIRONMENT) $(SWIFT) test --skip-build --sanitize=thread --build-path .build-tsan --skip '$(TIMED_SUITES)|$(TSAN_UNTIMED_LEFT_OUT)'
	@$(TSAN_ENVIRONMENT) .build-tsan/debug/ReelPackageTests.xctest --testing-library swift-testing --no-parallel \
		--filter '$(TSAN_TIMED_SECOND)' >.build-tsan/timed-second.log 2>&1 & second=$$!; \
	$(TSAN_ENVIRONMENT) $(SWIFT) test --skip-build --sanitize=thread --build-path .build-tsan --no-parallel --filter '$(TSAN_TIMED_FIRST)'; \
	first=$$?; wait $$second; second=$$?; echo "--- the second half, run beside the first:"; cat .build-tsan/timed-second.log; \
	echo "timed suites under TSan: first half exit $$first, second half exit $$second"; [ $$first = 0 ] && [ $$second = 0 ]
	@echo "check-tsan: no data races reported"

# A short recording (with HLS, an SRT push to a listener and an RTMP push to nothing, which reconnects), a
# composed one (two video inputs, overlays, a filter, two sound inputs as separate tracks, and a tier that resamples each), a transcode (to another size), a grab, a smart trim (two parts encoded at once) and a join (the transcode encoded
# again to match) under valgrind (Tests/LeakCheck/memcheck.sh): no definitely-lost bytes, and no video
# encoder still open at exit. valgrind cannot read Swift's DWARF, so it runs on a copy of the release binary
# without debug info.
LEAK_CHECK := sh Tests/LeakCheck/memcheck.sh
check-leaks: release
	@command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
	cp .build/release/reel .build/reel-leak-check && strip -g .build/reel-leak-check
	@scratch=$$(mktemp -d) && \
	port=$$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') && \
	{ srt-live-transmit -q -a no "srt://127.0.0.1:$$port?mode=listener" file://con > $$scratch/pushed.ts 2>/dev/null & } && \
	listener=$$! && sleep 0.3 && \
	$(LEAK_CHECK) .build/reel-leak-check record $$scratch/a.mov --video 'lavfi:testsrc2?realtime=0' \
		--audio 'lavfi:sine?realtime=0' --preset low --max-duration 2 --fragment-interval 0.5 --still $$scratch/a.jpg --live $$scratch/hls --live-segment 1 \
		--live "srt://127.0.0.1:$$port" --live rtmp://127.0.0.1:1/live/leak-check --quiet && \
	{ kill $$listener 2>/dev/null; true; } && test -s $$scratch/pushed.ts && \
	ffmpeg -v error -f lavfi -i "color=red@0.5:size=32x32,format=rgba" -frames:v 1 -y $$scratch/logo.png && \
	$(LEAK_CHECK) .build/reel-leak-check record $$scratch/f.mov --video 'lavfi:testsrc2?realtime=0' --video 'lavfi:testsrc=size=160x120?realtime=0' \
		--audio 'lavfi:sine?realtime=0' --audio 'lavfi:sine=frequency=1000?realtime=0&gain=-6dB' --audio-tracks separate --preset low \
		--max-duration 1 --layout side-by-side --overlay 'text:%{timecode}' --overlay "image:$$scratch/logo.png" --filter deinterlace \
		--tier 352x288:$$scratch/g.mov --quiet && \
	$(LEAK_CHECK) .build/reel-leak-check transcode $$scratch/a.mov $$scratch/b.mov --preset 352x288 --quiet && \
	$(LEAK_CHECK) .build/reel-leak-check grab $$scratch/a.mov $$scratch/c.png --at 0.5 && \
	$(LEAK_CHECK) .build/reel-leak-check trim $$scratch/a.mov $$scratch/d.mov --from 0.3 --to 1.7 --quiet && \
	$(LEAK_CHECK) .build/reel-leak-check join $$scratch/e.mov $$scratch/d.mov $$scratch/b.mov --quiet && \
	rm -rf $$scratch && echo "check-leaks: no definitely-lost bytes"

# Slurm end to end (Tests/Slurm): a slurm-wlm + munge cluster of three nodes on this machine, each slurmd in its
# own network and UTS namespace (installed when missing, all its state in a temporary folder, torn down at the
# end), runs `reel batch --shard` as the README's job array over 48 jobs in 4 shards and merges the reports with
# the README's jq line; runs it on one and two nodes (throughput per node count); cancels one task mid-transcode
# and re-runs the array; then powers a node off mid-batch (SIGKILL to everything on it): the node goes down,
# its task is requeued and completes only what was missing. About 3 minutes; needs root.
slurm-test: build
	python3 Tests/Slurm/slurm_test.py --reel $(REEL)

# Power cuts (Tests/PowerCut): recordings, segmented recordings, transcodes and batches onto powercutfs, a FUSE filesystem that keeps
# only what a strict POSIX disk keeps when the power goes (synced data; names once their folder is synced),
# cut at chosen and random moments; what is left must play up to its last shown fragment, or be complete, or
# be absent. About 90 s; needs root and /dev/fuse. POWER_CUT_ARGS: --seed N, --trials N, --only TEXT, --keep.
POWER_CUT_PACKAGES := python3-fusepy fuse3
# power-cut-deps installs its packages alone (CI runs it before power-cut-test goes beside slurm-test, whose
# cluster installs Slurm's: two apt-gets at once would fight over dpkg's lock).
power-cut-deps:
	@missing=$$(for p in $(POWER_CUT_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
power-cut-test: build power-cut-deps
	/usr/bin/python3 Tests/PowerCut/powercut_test.py --reel $(REEL) --results .build/power-cut-results.json $(POWER_CUT_ARGS)

# make install [PREFIX=/usr/local] [DESTDIR=]: the release binary (presets are compiled in; share/reel/presets
# has them as JSON to copy and change, used with --preset FILE.json), reel(1) written from the binary's own
# --help texts (packaging/manpage.py), bash completion, and systemd units (reel-serve.service with its
# environment file, reel-batch@.service and .timer). make uninstall removes exactly what install wrote.
PREFIX ?= /usr/local
DESTDIR ?=
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
UNITDIR ?= $(PREFIX)/lib/systemd/system
INSTALLED := $(PREFIX)/bin/reel $(PREFIX)/share/man/man1/reel.1 $(PREFIX)/share/bash-completion/completions/reel \
             $(UNITDIR)/reel-serve.service $(UNITDIR)/reel-batch@.service $(UNITDIR)/reel-batch@.timer \
             $(patsubst presets/%,$(PREFIX)/share/reel/presets/%,$(wildcard presets/*.json))
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSCONFDIR)/default $(DESTDIR)$(PREFIX)/share/reel/presets
	install -m 755 .build/release/reel $(DESTDIR)$(PREFIX)/bin/reel
	python3 packaging/manpage.py .build/release/reel > .build/reel.1
	install -m 644 .build/reel.1 $(DESTDIR)$(PREFIX)/share/man/man1/reel.1
	install -m 644 packaging/reel.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/reel
	for unit in reel-serve.service reel-batch@.service; do \
		sed -e 's|@BINDIR@|$(PREFIX)/bin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' packaging/systemd/$$unit.in > .build/$$unit; \
		install -m 644 .build/$$unit $(DESTDIR)$(UNITDIR)/$$unit; \
	done
	install -m 644 packaging/systemd/reel-batch@.timer $(DESTDIR)$(UNITDIR)/reel-batch@.timer
	@# An environment file already there is the administrator's: kept.
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/reel-serve ] || install -m 640 packaging/systemd/reel-serve.env $(DESTDIR)$(SYSCONFDIR)/default/reel-serve
	install -m 644 presets/*.json $(DESTDIR)$(PREFIX)/share/reel/presets/
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	@# The environment file only as installed: one the administrator changed (or had before) stays.
	-cmp -s packaging/systemd/reel-serve.env $(DESTDIR)$(SYSCONFDIR)/default/reel-serve && rm -f $(DESTDIR)$(SYSCONFDIR)/default/reel-serve
	-rmdir $(DESTDIR)$(PREFIX)/share/reel/presets $(DESTDIR)$(PREFIX)/share/reel 2>/dev/null

# make deb: a Debian package (debian/, debhelper) of what make install writes, built in place with the release
# build (dpkg-buildpackage writes next to the checkout; the files are moved into .build/deb/), then lintian on it.
# make deb-test installs it into a clean Debian 12 root made by mmdebstrap and uses it there.
DEB_PACKAGES := dpkg-dev debhelper lintian mmdebstrap
deb: release
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	dpkg-buildpackage -us -uc -b
	@mkdir -p .build/deb
	mv ../reel_$$(dpkg-parsechangelog -S Version)_* .build/deb/
	lintian --info .build/deb/reel_*.deb || true
deb-test: deb
	bash packaging/deb_test.sh .build/deb/reel_$$(dpkg-parsechangelog -S Version)_amd64.deb

# Installs into a temporary root and uses the installed reel there, from outside the checkout (packaging/install_test.sh).
install-test: release
	bash packaging/install_test.sh

# Hour-long reliability runs (benchmarks/long_runs.py): an hour of media (A/V end gap, RSS growth) and ten
# minutes of paced recording with a 0.1 % fast audio clock (drift). About 20 minutes; not part of make test.
long-test: release
	python3 benchmarks/long_runs.py

# libFuzzer on the parsers (preset JSON, job files, device specs, sizes) and the media readers (probe + grab
# of arbitrary bytes). Fuzz/ is its own package because -sanitize=fuzzer supplies main. Seeds live in
# Tests/FuzzCorpus/TARGET; what the fuzzer finds goes to .build-fuzz/ (crashing inputs: .build-fuzz/artifacts;
# Swift's own backtracer is off there, so a runtime trap reaches libFuzzer, which saves the input).
FUZZ_SECONDS ?= 300
FUZZ_TARGETS := preset jobs spec values media
FUZZER := Fuzz/.build/debug/ReelFuzz
fuzz: deps
	$(SWIFT) build --package-path Fuzz -Xswiftc -sanitize=fuzzer
	@mkdir -p .build-fuzz/artifacts
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p .build-fuzz/corpus/$$target; \
		SWIFT_BACKTRACE=enable=no REEL_FUZZ_TARGET=$$target $(FUZZER) -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-artifact_prefix=.build-fuzz/artifacts/$$target- -print_final_stats=1 \
			.build-fuzz/corpus/$$target Tests/FuzzCorpus/$$target >.build-fuzz/$$target.log 2>&1 \
			|| { tail -40 .build-fuzz/$$target.log; echo "fuzz $$target: FAILED (input in .build-fuzz/artifacts)"; exit 1; }; \
		echo "fuzz $$target: $$(grep -o 'stat::number_of_executed_units: [0-9]*' .build-fuzz/$$target.log | cut -d' ' -f2) inputs in $(FUZZ_SECONDS) s, no crash, no hang"; \
	done

# An emulated V4L2 camera (Tests/FakeCamera, issue 13): an LD_PRELOAD library that answers libavdevice's (and
# Reel's) open/ioctl/mmap/poll/stat/readdir calls on the /dev/videoN paths named in $$FAKE_V4L2_CONFIG, so
# the real v4l2 capture path runs on a machine with no camera. Tests/FakeCamera/smoke.sh proves it with ffmpeg.
FAKE_CAMERA := .build/fake-camera/libfakev4l2.so
fake-camera: $(FAKE_CAMERA)
$(FAKE_CAMERA): Tests/FakeCamera/fakev4l2.c Tests/FakeCamera/json.c Tests/FakeCamera/json.h
	@missing=$$(for p in gcc libc6-dev libavcodec-dev libavutil-dev pkg-config; do dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || echo $$p; done); \
	[ -z "$$missing" ] || $(MAKE) deps
	@mkdir -p $(dir $@)
	gcc -shared -fPIC -O2 -Wall -Wextra -o $@ Tests/FakeCamera/fakev4l2.c Tests/FakeCamera/json.c \
		$$(pkg-config --cflags libavcodec libavutil) -ldl -lpthread $$(pkg-config --libs libavcodec libavutil)

# The short pass CI runs.
fuzz-quick:
	$(MAKE) fuzz FUZZ_SECONDS=8

clean:
	rm -rf .build .build-tsan .build-fuzz Fuzz/.build recordings
