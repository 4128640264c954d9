#!/usr/bin/env bash
# Regenerates the bundled samples in samples/: Harvard sentences (IEEE 1969, public
# domain) spoken by Festival's cmu_us_slt_arctic_hts voice, with the word timings that
# Festival itself used to synthesize them, so they are exact by construction.
# Needs Debian's festival, festvox-us-slt-hts and sox. The outputs are committed;
# nothing at build or test time runs this.
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/samples"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
sentences=(
  "The birch canoe slid on the smooth planks."
  "Glue the sheet to the dark blue background."
  "It's easy to tell the depth of a well."
  "These days a chicken leg is a rare dish."
  "Rice is often served in round bowls."
  "The juice of lemons makes fine punch."
)
trailing_silence_s=0.4
i=0
for text in "${sentences[@]}"; do
  i=$((i + 1)); id=$(printf 'harvard-%02d' "$i")
  cat > "$tmp/$id.scm" <<SCM
(voice_cmu_us_slt_arctic_hts)
(set! u (utt.synth (Utterance Text "$text")))
(utt.save.wave u "$tmp/$id.raw.wav" 'riff)
(mapcar (lambda (w) (format t "%s %f %f\n" (item.name w) (item.feat w "word_start") (item.feat w "word_end")))
        (utt.relation.items u 'Word))
SCM
  festival -b "$tmp/$id.scm" > "$tmp/$id.words"
  sox "$tmp/$id.raw.wav" -r 16000 -b 16 -c 1 "$out/$id.wav" pad 0 "$trailing_silence_s"
  printf '%s\n' "$text" > "$out/$id.txt"
  awk 'BEGIN { printf "[" } NF == 3 { printf "%s\n  {\"word\": \"%s\", \"start\": %.3f, \"end\": %.3f}", (n++ ? "," : ""), $1, $2, $3 } END { print "\n]" }' \
    "$tmp/$id.words" > "$out/$id.words.json"
done
