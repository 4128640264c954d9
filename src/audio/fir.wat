(module
  (memory (export "memory") 1)
  ;; The resampler's inner loop (resample.ts), four taps at a time with 128-bit SIMD:
  ;; out[k] = sum over j of coef[phase][j] * in[first + j], for `count` outputs from
  ;; `first` and `phase`, stepping as the JavaScript does. Pointers are byte offsets;
  ;; `taps` is a multiple of 4 (phases zero-padded). Assembled into fir-wasm.ts with
  ;; wabt: npx -p wabt@1.0.37 wat2wasm src/audio/fir.wat -o fir.wasm && base64 -w0 fir.wasm
  (func (export "fir")
    (param $coef i32) (param $in i32) (param $out i32) (param $count i32)
    (param $first i32) (param $phase i32) (param $taps i32) (param $up i32)
    (param $baseStep i32) (param $phaseStep i32)
    (local $end i32) (local $c i32) (local $x i32) (local $j i32) (local $acc v128)
    (local.set $end (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (loop $outputs
        (br_if $done (i32.ge_u (local.get $out) (local.get $end)))
        (local.set $c (i32.add (local.get $coef) (i32.shl (i32.mul (local.get $phase) (local.get $taps)) (i32.const 2))))
        (local.set $x (i32.add (local.get $in) (i32.shl (local.get $first) (i32.const 2))))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.shl (local.get $taps) (i32.const 2)))
        (loop $taps
          (local.set $acc (f32x4.add (local.get $acc) (f32x4.mul (v128.load (local.get $c)) (v128.load (local.get $x)))))
          (local.set $c (i32.add (local.get $c) (i32.const 16)))
          (local.set $x (i32.add (local.get $x) (i32.const 16)))
          (br_if $taps (local.tee $j (i32.sub (local.get $j) (i32.const 16)))))
        (f32.store (local.get $out)
          (f32.add
            (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
            (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $first (i32.add (local.get $first) (local.get $baseStep)))
        (local.set $phase (i32.add (local.get $phase) (local.get $phaseStep)))
        (if (i32.ge_u (local.get $phase) (local.get $up))
          (then
            (local.set $phase (i32.sub (local.get $phase) (local.get $up)))
            (local.set $first (i32.add (local.get $first) (i32.const 1)))))
        (br $outputs)))))
