#!/usr/bin/env bash
# Regenerates the codec fixtures in test/fixtures/audio/: one 0.2 s stereo tone
# (440 Hz left, 660 Hz right, 22.05 kHz) in every format and WAV encoding voxbench
# decodes, plus an IMA ADPCM WAV it refuses. The tests check each decodes to exactly
# 4410 frames (9600 at 48 kHz for Opus). Needs Debian's sox, flac, lame, vorbis-tools
# and opus-tools. The outputs are committed; nothing at build or test time runs this.
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/test/fixtures/audio"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
sox -n -r 22050 -c 2 -b 16 "$tmp/tone.wav" synth 0.2 sine 440 sine 660 vol 0.5
sox "$tmp/tone.wav" -e unsigned -b 8 "$out/pcm-u8.wav"
sox "$tmp/tone.wav" -e signed -b 16 "$out/pcm-s16.wav"
sox "$tmp/tone.wav" -e signed -b 24 "$out/pcm-s24.wav"
sox "$tmp/tone.wav" -e signed -b 32 "$out/pcm-s32.wav"
sox "$tmp/tone.wav" -e floating-point -b 32 "$out/float-32.wav"
sox "$tmp/tone.wav" -e floating-point -b 64 "$out/float-64.wav"
sox "$tmp/tone.wav" -e u-law "$out/mulaw.wav"
sox "$tmp/tone.wav" -e a-law "$out/alaw.wav"
sox "$tmp/tone.wav" -e ima-adpcm "$out/adpcm.wav"
flac --silent --force -o "$out/tone.flac" "$tmp/tone.wav"
lame --quiet -b 64 "$tmp/tone.wav" "$out/tone.mp3"
oggenc --quiet --serial 1 -o "$out/tone.ogg" "$tmp/tone.wav"
opusenc --quiet --serial 1 "$tmp/tone.wav" "$out/tone.opus"
