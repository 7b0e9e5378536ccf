import type { ScanResult } from './types.js';

// Sound and vibration with each answer, so the steward need not read the screen: one high beep
// for valid, two mid beeps for already used, one long low tone for a refusal.

let audio: AudioContext | null = null;

const PATTERNS: Record<'ok' | 'used' | 'no', { tones: [number, number][]; vibrate: number[] }> = {
  ok: { tones: [[1320, 0.12]], vibrate: [80] },
  used: { tones: [[660, 0.12], [660, 0.12]], vibrate: [80, 60, 80] },
  no: { tones: [[220, 0.45]], vibrate: [400] },
};

export const tone = (result: ScanResult): keyof typeof PATTERNS => (result === 'valid' || result === 'exited' ? 'ok' : result === 'already_used' ? 'used' : 'no');

export function signal(result: ScanResult): void {
  const pattern = PATTERNS[tone(result)];
  navigator.vibrate?.(pattern.vibrate);
  try {
    audio ??= new AudioContext();
    void audio.resume();
    let t = audio.currentTime;
    for (const [freq, length] of pattern.tones) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = 'square';
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.2, t);
      gain.gain.exponentialRampToValueAtTime(0.001, t + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + length);
      t += length + 0.08;
    }
  } catch {
    // No audio (autoplay policy before any tap, or no output): the colour and vibration remain.
  }
}
