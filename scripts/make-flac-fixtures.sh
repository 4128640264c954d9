#!/usr/bin/env bash
# Regenerates the FLAC fixtures in test/fixtures/audio/flac/, made by Debian's flac
# (libFLAC's own encoder) so test/flac-decode.test.ts checks voxbench's decoder on what
# real encoders write: -0 (fixed predictors, independent channels) and -8 (LPC, every
# stereo mode), depths 8, 12, 16, 20, 24 and 32 bits, 1 to 3 channels, rates in
# every header form (table, kHz, Hz, tens of Hz), block sizes of every header code,
# LPC orders up to 32, wasted bits, constant and verbatim subframes. Each signal is silence,
# a tone, full-scale noise, 14 tones at once (where high LPC orders pay), then a chirp whose channels are alike, related, one-sided,
# one clean, and mid plus or minus noise in turn. Needs flac and python3 with numpy.
# The outputs are committed; nothing at build or test time runs this.
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/test/fixtures/audio/flac"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
cat > "$tmp/signal.py" <<'PY'
# rate channels bits seconds wasted-bits -> a WAV (extensible, so any depth) on stdout
import sys, struct, numpy as np
rate, ch, bits, secs, wasted = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
n = int(rate * secs); t = np.arange(n) / rate; rng = np.random.default_rng(7); seg = n // 8
base = np.zeros(n)
base[seg:2*seg] = 0.6 * np.sin(2 * np.pi * 440 * t[seg:2*seg])
base[2*seg:3*seg] = rng.uniform(-1, 1, seg)
base[3*seg:] = 0.5 * np.sin(2 * np.pi * np.cumsum(200 + 3000 * t / secs) / rate)[3*seg:]
base[3*seg:4*seg] = sum(0.05 * np.sin(2 * np.pi * f * t[3*seg:4*seg]) for f in rng.uniform(100, rate / 2.5, 14))
chans = [base.copy() for _ in range(ch)]
if ch >= 2:
    left, right = chans[0], chans[1]
    right[4*seg:5*seg] = 0.8 * base[4*seg:5*seg] + 0.01 * rng.standard_normal(seg)
    left[5*seg:6*seg] = 0
    right[6*seg:7*seg] = 0.4 * np.sin(2 * np.pi * 1234 * t[6*seg:7*seg])
    left[6*seg:7*seg] = right[6*seg:7*seg] + 0.05 * rng.standard_normal(seg)
    noise = 0.05 * rng.standard_normal(n - 7*seg)
    left[7*seg:], right[7*seg:] = base[7*seg:] + noise, base[7*seg:] - noise
for c in range(2, ch): chans[c] = 0.5 * base[::-1]
full = 2 ** (bits - 1)
v = np.stack([np.clip(np.round(x * full), -full, full - 1).astype(np.int64) for x in chans], 1)
v = (v >> wasted) << wasted
width = (bits + 7) // 8
u = (v.reshape(-1) << (8 * width - bits)) & ((1 << (8 * width)) - 1)
data = np.stack([(u >> (8 * i)) & 255 for i in range(width)], 1).astype(np.uint8).tobytes()
pcm = bytes.fromhex('0100000000001000800000aa00389b71')
fmt = struct.pack('<HHIIHHHHI', 0xFFFE, ch, rate, rate * ch * width, ch * width, 8 * width, 22, bits, (1 << ch) - 1) + pcm
body = b'WAVE' + b'fmt ' + struct.pack('<I', len(fmt)) + fmt + b'data' + struct.pack('<I', len(data)) + data
sys.stdout.buffer.write(b'RIFF' + struct.pack('<I', len(body)) + body)
PY
make() { # name rate channels bits seconds wasted-bits flac-options...
  local name=$1; python3 "$tmp/signal.py" "$2" "$3" "$4" "$5" "$6" > "$tmp/$name.wav"; shift 6
  flac --silent --force --no-padding "$@" -o "$out/$name.flac" "$tmp/$name.wav"
}
make s16-48k-stereo-0 48000 2 16 0.12 0 -0
make s16-48k-stereo-8 48000 2 16 0.25 0 -8 -b 1152
make s8-12k-mono 12000 1 8 0.2 0 -8 -b 192 --lax -l 32
make s12-37800-stereo 37800 2 12 0.15 0 -5 -b 576
make s20-44100-3ch 44100 3 20 0.1 0 -8 -b 1000
make s24-96k-stereo 96000 2 24 0.06 0 -8 -l 32 -b 1152
make s16-11025-wasted 11025 2 16 0.3 4 -8 -b 200
make s32-48k-stereo 48000 2 32 0.05 0 -8 -b 1152
