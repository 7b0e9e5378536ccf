// Reads QR codes from the camera: the browser's BarcodeDetector where it exists (Android Chrome,
// Safari), otherwise jsQR on frames drawn to a canvas (loaded only when needed).

interface Detector {
  detect(source: CanvasImageSource): Promise<{ rawValue: string }[]>;
}
interface DetectorClass {
  new (opts: { formats: string[] }): Detector;
  getSupportedFormats(): Promise<string[]>;
}

type JsQR = (data: Uint8ClampedArray, width: number, height: number, options?: { inversionAttempts?: 'dontInvert' }) => { data: string } | null;
type Decode = (video: HTMLVideoElement) => Promise<string | null>;

async function nativeDecoder(): Promise<Decode | null> {
  const BarcodeDetector = (globalThis as { BarcodeDetector?: DetectorClass }).BarcodeDetector;
  if (!BarcodeDetector) return null;
  try {
    if (!(await BarcodeDetector.getSupportedFormats()).includes('qr_code')) return null;
  } catch {
    return null;
  }
  const detector = new BarcodeDetector({ formats: ['qr_code'] });
  return async (video) => (await detector.detect(video))[0]?.rawValue ?? null;
}

async function jsqrDecoder(): Promise<Decode> {
  // jsqr is CommonJS: bundlers hand its function over as `default`, Node's loader one level deeper.
  const mod = (await import('jsqr')) as unknown as { default: JsQR | { default: JsQR } };
  const jsQR = typeof mod.default === 'function' ? mod.default : mod.default.default;
  const canvas = document.createElement('canvas');
  const g = canvas.getContext('2d', { willReadFrequently: true })!;
  return async (video) => {
    // A phone camera gives 720p or more; 640 px across is plenty for a ticket's QR and far faster.
    const scale = Math.min(1, 640 / (video.videoWidth || 640));
    canvas.width = Math.round(video.videoWidth * scale);
    canvas.height = Math.round(video.videoHeight * scale);
    if (!canvas.width || !canvas.height) return null;
    g.drawImage(video, 0, 0, canvas.width, canvas.height);
    const image = g.getImageData(0, 0, canvas.width, canvas.height);
    return jsQR(image.data, image.width, image.height, { inversionAttempts: 'dontInvert' })?.data ?? null;
  };
}

export interface CameraScan {
  stop(): void;
  decoder: 'native' | 'jsqr';
}

/**
 * Starts the back camera on `video` and calls `onCode` for each code read; the same code is not
 * reported again within `repeatMs` (a QR stays in view for a while).
 */
export async function startCamera(video: HTMLVideoElement, onCode: (code: string) => void, repeatMs = 3000): Promise<CameraScan> {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' }, audio: false });
  video.srcObject = stream;
  video.setAttribute('playsinline', '');
  video.muted = true;
  await video.play();
  const native = await nativeDecoder();
  const decode = native ?? (await jsqrDecoder());
  let stopped = false;
  let last = { code: '', at: 0 };
  const tick = async () => {
    if (stopped) return;
    try {
      const code = video.readyState >= 2 ? await decode(video) : null;
      if (code && (code !== last.code || Date.now() - last.at > repeatMs)) {
        last = { code, at: Date.now() };
        onCode(code);
      }
    } catch {
      // A frame that cannot be read: the next one may be.
    }
    if (!stopped) setTimeout(tick, 120);
  };
  void tick();
  return {
    decoder: native ? 'native' : 'jsqr',
    stop() {
      stopped = true;
      for (const track of stream.getTracks()) track.stop();
      video.srcObject = null;
    },
  };
}
