// The `deadlines` scenario's one step: session.update, a commit that opens the input, every
// append frame due at t0 + k * chunkMs (absolute, so timer lateness never accumulates),
// the final commit, then the final transcript. The frames come prepared from the sweep
// (PACING_FRAMES), as voxbench prepares its own before the clock starts.
const { readFileSync } = require('node:fs');

const frames = JSON.parse(readFileSync(process.env.PACING_FRAMES, 'utf8'));
const chunkMs = Number(process.env.PACING_CHUNK_MS || 100);

function streamUtterance(context, events, done) {
  const ws = context.ws;
  ws.on('message', (data) => {
    if (String(data).includes('"transcription.done"')) done();
  });
  ws.send(JSON.stringify({ type: 'session.update', model: 'meter' }));
  ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
  const t0 = performance.now();
  let k = 0;
  const tick = () => {
    while (k < frames.length && t0 + k * chunkMs <= performance.now()) ws.send(frames[k++]);
    if (k < frames.length) setTimeout(tick, Math.ceil(t0 + k * chunkMs - performance.now()));
    else ws.send(JSON.stringify({ type: 'input_audio_buffer.commit', final: true }));
  };
  tick();
}

// The `think` scenario's steps: one frame per loop turn, then the final transcript.
function framesLeft(context, next) {
  next((context.vars.sent ?? 0) < frames.length);
}

function sendNextFrame(context, events, done) {
  const k = context.vars.sent ?? 0;
  context.vars.sent = k + 1;
  context.ws.send(frames[k], done);
}

function awaitFinal(context, events, done) {
  context.ws.on('message', (data) => {
    if (String(data).includes('"transcription.done"')) done();
  });
}

module.exports = { streamUtterance, framesLeft, sendNextFrame, awaitFinal };
