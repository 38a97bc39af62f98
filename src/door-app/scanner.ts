/**
 * QR codes from the camera or a photo: the browser's own BarcodeDetector where it reads QR codes (Android, macOS),
 * else the same API from `barcode-detector` (ZXing in WebAssembly, served with the app so it works offline).
 */
import { BarcodeDetector as ZXingDetector, prepareZXingModule } from "barcode-detector/ponyfill";

interface Detector {
  detect(source: ImageBitmapSource): Promise<{ rawValue: string }[]>;
}

/** The wasm next to the app, never a CDN: the door may be offline, and the page's CSP allows only itself. */
prepareZXingModule({ overrides: { locateFile: (path: string, prefix: string) => (path.endsWith(".wasm") ? new URL(path, location.href).href : prefix + path) } });

let detector: Promise<Detector> | null = null;

function qrDetector(): Promise<Detector> {
  detector ??= (async () => {
    const native = (globalThis as { BarcodeDetector?: { new (o: { formats: string[] }): Detector; getSupportedFormats(): Promise<string[]> } }).BarcodeDetector;
    if (native && (await native.getSupportedFormats()).includes("qr_code")) return new native({ formats: ["qr_code"] });
    return new ZXingDetector({ formats: ["qr_code"] });
  })();
  return detector;
}

/** The first QR code's text in an image (a photo or a file), or null. */
export async function readImage(file: Blob): Promise<string | null> {
  const bitmap = await createImageBitmap(file);
  try {
    const found = await (await qrDetector()).detect(bitmap);
    return found[0]?.rawValue ?? null;
  } finally {
    bitmap.close();
  }
}

/** How long the same code is ignored after it was read: a ticket held in front of the camera is one scan. */
const SAME_CODE_PAUSE_MS = 3000;
const FRAME_EVERY_MS = 150;

/** Reads the camera into `video` and calls `onCode` with each new code; answers a function that stops it. */
export async function startCamera(video: HTMLVideoElement, onCode: (code: string) => Promise<void> | void): Promise<() => void> {
  const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" }, audio: false });
  video.srcObject = stream;
  await video.play();
  const reader = await qrDetector();
  let running = true;
  let last = { code: "", at: 0 };
  const tick = async () => {
    if (!running) return;
    try {
      if (video.readyState >= HTMLMediaElement.HAVE_CURRENT_DATA) {
        const code = (await reader.detect(video))[0]?.rawValue;
        const now = Date.now();
        if (code && (code !== last.code || now - last.at > SAME_CODE_PAUSE_MS)) {
          last = { code, at: now };
          await onCode(code);
        } else if (code) last.at = now;
      }
    } catch (error) {
      console.warn("camera frame", error);
    }
    if (running) setTimeout(tick, FRAME_EVERY_MS);
  };
  void tick();
  return () => {
    running = false;
    for (const track of stream.getTracks()) track.stop();
    video.srcObject = null;
  };
}
