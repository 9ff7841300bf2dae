/** A live input level from an AnalyserNode, written to whichever element shows it now (CSSOM, CSP-safe). */
export function startLevelMeter(stream: MediaStream, target: () => HTMLElement | null | undefined): () => void {
  const AudioCtx = globalThis.AudioContext ?? (globalThis as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
  if (!AudioCtx) return () => undefined;
  const context = new AudioCtx();
  const analyser = context.createAnalyser();
  analyser.fftSize = 1024;
  context.createMediaStreamSource(stream).connect(analyser);
  const samples = new Float32Array(analyser.fftSize);
  let frame = 0;
  const tick = () => {
    analyser.getFloatTimeDomainData(samples);
    let sum = 0;
    for (const s of samples) sum += s * s;
    // RMS on a dB scale from -60 to 0, so quiet speech still moves the bar.
    const db = 10 * Math.log10(sum / samples.length || 1e-9);
    const level = Math.min(1, Math.max(0, (db + 60) / 60));
    const element = target();
    if (element) element.style.transform = `scaleX(${level.toFixed(3)})`;
    frame = requestAnimationFrame(tick);
  };
  frame = requestAnimationFrame(tick);
  return () => {
    cancelAnimationFrame(frame);
    void context.close().catch(() => undefined);
  };
}
