#!/usr/bin/env bash
# `make bench`: the benchmark suite arrives with the Benchmarks issue (key delivery, packaging,
# playback side by side with Shaka Packager and ffmpeg). Until then this says so and fails, so
# nobody mistakes an empty run for a measurement.
echo "bench: no benchmarks yet (see the Benchmarks issue)" >&2
exit 1
